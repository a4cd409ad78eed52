import request from 'supertest';

import { FreshDatabase, freshDatabase } from './fresh-database';
import { INVOKE_APP_ENV } from './invoke-factories';
import { ServerProcess, startServer } from './server-process';
import { createTestApp, TestApp } from './test-app';

/**
 * For the kill -9 durability tests: a database of its own with the built server running on it
 * (`npm test` builds dist/ first), killed by the test, then the application opened again on the
 * same database to look at what survived. Registers its own beforeAll/afterAll.
 */
export interface CrashFixture {
  /** The running server process. */
  server(): ServerProcess;
  /** A TestApp-shaped handle that sends supertest requests to the server process. */
  remote(): TestApp;
  /** kill -9, at once (call it in the callback that saw an answer: no chance for a late write). */
  kill(): void;
  /** Waits for the killed process to end, then opens the application on the same database. */
  reopen(): Promise<TestApp>;
}

export function useCrashFixture(): CrashFixture {
  let fresh: FreshDatabase;
  let server: ServerProcess;
  let after: TestApp | undefined;

  beforeAll(async () => {
    fresh = await freshDatabase({ migrated: true });
    server = await startServer(fresh.env as Record<string, string>);
  }, 180_000);
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await after?.close();
    await fresh?.drop();
  });

  return {
    server: () => server,
    remote: () => ({ http: () => request(server.url) }) as unknown as TestApp,
    kill: () => server.child.kill('SIGKILL'),
    reopen: async () => {
      await server.exited;
      after = await createTestApp({ ...(fresh.env as Record<string, string>), ...INVOKE_APP_ENV });
      return after;
    },
  };
}
