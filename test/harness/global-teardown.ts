import { dropDatabases } from './template-databases';

/**
 * Drops the run's PostgreSQL template and worker databases (PGlite's dump stays cached). Closes the
 * worker PGlite of this process (test/support/shared-pglite.ts) if it ran test files itself
 * (`--runInBand`: jest-light-runner runs them in its own thread): it would keep the process alive.
 * Worker threads end with their pool.
 */
export default async function globalTeardown(): Promise<void> {
  const names = process.env.PARLEY_TEST_WORKER_DATABASES;
  // After `--runInBand`, this process's DATABASE_URL names its worker database (worker-database.ts).
  const url = process.env.PARLEY_TEST_BASE_DATABASE_URL ?? process.env.DATABASE_URL;
  if (url && names) await dropDatabases(url, names.split(','));
  const sharedPGlite = require.cache[require.resolve('../support/shared-pglite')];
  await (sharedPGlite?.exports as typeof import('../support/shared-pglite') | undefined)?.closeWorkerPGlite();
}
