import { INVOKE_APP_ENV } from './invoke-factories';
import { SpawnedServer, spawnServer } from './spawn-server';
import { TEST_ADMIN_KEY } from './test-app';

export type ServerProcess = SpawnedServer;

/**
 * The built server on the given database (a FreshDatabase's env), with the suite's admin key,
 * provider secret and loopback allowlist, for tests that kill it with `kill -9`.
 */
export function startServer(env: Record<string, string>): Promise<ServerProcess> {
  return spawnServer({ PARLEY_ADMIN_KEY: TEST_ADMIN_KEY, PROVIDER_ALLOWED_HOSTS: '127.0.0.1,localhost', ...INVOKE_APP_ENV, ...env });
}

/**
 * startServer, retried while a killed predecessor's DATA_DIR lock is still held. On Linux a lock
 * whose owner is known dead is taken over at once, so the first try starts; elsewhere (no /proc) it
 * is taken over once it has not been refreshed for 15 s (docs/architecture.md, "The DATA_DIR lock").
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

/**
 * A server's environment on `database` for the background-response tests: a short job lease (a
 * killed instance's jobs are taken over in seconds), events flushed every 20 ms, and `concurrency`
 * jobs at a time per instance.
 */
export function backgroundJobsEnv(database: Record<string, string>, concurrency: number): Record<string, string> {
  return { ...database, RESPONSES_JOB_LEASE_MS: '5000', RESPONSES_EVENT_FLUSH_MS: '20', RESPONSES_JOB_CONCURRENCY: String(concurrency) };
}
