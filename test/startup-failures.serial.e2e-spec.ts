import { spawn } from 'node:child_process';
import { createServer, Server } from 'node:net';
import * as path from 'node:path';

import { databaseUrlNamed } from './harness/database-url';

const MAIN = path.resolve(__dirname, '../dist/main.js');

/** The built server started as `npm start` runs it, until it exits by itself: exit code, output, seconds. */
function startUntilExit(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string; seconds: number }> {
  const inherited = { ...process.env };
  for (const name of ['DATABASE_URL', 'DATA_DIR_TEMPLATE', 'PARLEY_ADMIN_KEY', 'PORT', 'HOST']) delete inherited[name];
  const started = Date.now();
  const child = spawn(process.execPath, [MAIN], {
    env: { ...inherited, DATA_DIR: 'memory://', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A server that never gives up is stopped here, so the assertions below report it instead of a test timeout.
  const stop = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(stop);
      resolve({ code, stdout, stderr, seconds: (Date.now() - started) / 1000 });
    }),
  );
}

const listening = (server: Server) =>
  new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listening(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A stack trace's frame line, as Node prints them. */
const STACK_FRAME = /^\s+at /m;

/**
 * Start-up failures end with one line naming the cause and the fix, exit code 1, promptly
 * (docs/operations.md, "Start-up failures"): a port in use before the database is even opened,
 * an unreachable PostgreSQL after a short bounded retry (DATABASE_CONNECT_WINDOW_MS, 5 s).
 */
describe('start-up failures (built server)', () => {
  it('a port in use: one line, exit 1 within a few seconds', async () => {
    const occupant = createServer();
    const port = await listening(occupant);
    try {
      const run = await startUntilExit({ PORT: String(port) });
      expect(run.stderr).toBe(`parley: port ${port} is in use (EADDRINUSE): stop the other process or set PORT\n`);
      expect(run.code).toBe(1);
      expect(run.seconds).toBeLessThan(8);
      expect(run.stdout).toBe('');
    } finally {
      await new Promise((resolve) => occupant.close(resolve));
    }
  });

  it('an unreachable database: one line without the password, exit 1 after the short retry', async () => {
    const port = await closedPort();
    const run = await startUntilExit({ PORT: '0', DATABASE_URL: `postgres://parley:s3cret-pw@127.0.0.1:${port}/parley` });
    expect(run.stderr).toBe(
      `parley: cannot reach the database at 127.0.0.1:${port} (ECONNREFUSED): start PostgreSQL or fix DATABASE_URL\n`,
    );
    expect(run.code).toBe(1);
    // The retry window (5 s) and the start around it, with room for a loaded CI machine; TypeORM's own retries took ~25 s.
    expect(run.seconds).toBeGreaterThanOrEqual(4);
    expect(run.seconds).toBeLessThan(16);
    expect(`${run.stdout}${run.stderr}`).not.toMatch(STACK_FRAME);
    expect(`${run.stdout}${run.stderr}`).not.toContain('s3cret-pw');
  });

  const base = process.env.PARLEY_TEST_BASE_DATABASE_URL ?? process.env.DATABASE_URL;
  (base ? it : it.skip)('PostgreSQL answers but the database does not exist: one line at once, no retry', async () => {
    const url = new URL(databaseUrlNamed(base!, 'parley_no_such_database'));
    url.password = 's3cret-pw';
    const run = await startUntilExit({ PORT: '0', DATABASE_URL: url.toString() });
    expect(run.stderr).toBe(
      `parley: database "parley_no_such_database" does not exist at ${url.hostname}:${url.port || '5432'} (3D000): ` +
        'create it (createdb) or fix DATABASE_URL\n',
    );
    expect(run.code).toBe(1);
    // Loading the application and one attempt (a retry would take the 5 s window; TypeORM's took ~25 s).
    expect(run.seconds).toBeLessThan(12);
    expect(`${run.stdout}${run.stderr}`).not.toMatch(STACK_FRAME);
    expect(`${run.stdout}${run.stderr}`).not.toContain('s3cret-pw');
  });
});
