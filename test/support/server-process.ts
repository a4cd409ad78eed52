import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { INVOKE_APP_ENV } from './invoke-factories';
import { TEST_ADMIN_KEY } from './test-app';

const MAIN = path.join(__dirname, '..', '..', 'dist', 'main.js');

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Resolves once the process has exited. */
  exited: Promise<unknown>;
}

/**
 * The built server (`node dist/main.js`) as a child process on a free loopback port, for tests that
 * kill it; resolves once it listens. Needs `npm run build` first (CI builds before testing).
 */
export function startServer(env: Record<string, string>): Promise<ServerProcess> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build before this test`);
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', PARLEY_ADMIN_KEY: TEST_ADMIN_KEY, PROVIDER_ALLOWED_HOSTS: '127.0.0.1,localhost', ...INVOKE_APP_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return new Promise((resolve, reject) => {
    let output = '';
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (url) resolve({ child, url: url[0], exited });
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.on('exit', (code) => reject(new Error(`server exited (${code}) before listening:\n${output}`)));
  });
}

/**
 * startServer, retried while a killed predecessor's DATA_DIR lock is not yet stale (PGlite: the
 * lock of a process that died is taken over once it has not been refreshed for 15 s).
 */
export async function restartServer(env: Record<string, string>, timeoutMs = 60_000): Promise<ServerProcess> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await startServer(env);
    } catch (err) {
      if (!/in use by another Parley process/.test((err as Error).message) || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}
