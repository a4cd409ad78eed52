import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';

export interface SpawnedServer {
  child: ChildProcess;
  url: string;
  /** Everything the process printed so far (stdout and stderr). */
  output: () => string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
}

const MAIN = path.resolve(__dirname, '../../dist/main.js');

/**
 * The built server (`npm run build` first) as a process of its own, on port 0, as `npm start` runs
 * it; resolves once it listens. Without DATABASE_URL in `env` it runs on a throwaway PGlite.
 */
export function spawnServer(env: Record<string, string | undefined> = {}): Promise<SpawnedServer> {
  const base: Record<string, string | undefined> = {
    ...process.env,
    DATABASE_URL: undefined,
    DATA_DIR: 'memory://',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    PARLEY_ADMIN_KEY: undefined,
  };
  const merged = Object.fromEntries(Object.entries({ ...base, ...env }).filter(([, v]) => v !== undefined)) as Record<string, string>;
  // An in-memory server starts from the run's migrated dump (test/harness), as test apps do.
  delete merged.DATA_DIR_TEMPLATE;
  const template = process.env.PARLEY_TEST_PGLITE_TEMPLATE;
  if (template && merged.DATA_DIR === 'memory://' && !merged.DATABASE_URL && env.DATA_DIR_TEMPLATE === undefined)
    merged.DATA_DIR_TEMPLATE = template;
  const child = spawn(process.execPath, [MAIN], { env: merged, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const match = /(?:Swagger UI: |listening on )(http:\/\/[\d.]+:\d+)/.exec(text);
      if (match && /\n$/.test(text)) resolve({ child, url: match[1], output: () => text, exited });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`server exited (${code}) before listening:\n${text}`)));
  });
}
