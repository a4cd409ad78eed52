import { dropDatabases } from './template-databases';

/**
 * Drops the run's PostgreSQL template and worker databases (PGlite's dump stays cached). Closes the
 * PGlite this process shared among its test files (test/harness/environment.js), if it ran them
 * itself (`--runInBand`): it would keep the process alive. Workers end with their process.
 */
export default async function globalTeardown(): Promise<void> {
  const names = process.env.PARLEY_TEST_WORKER_DATABASES;
  if (process.env.DATABASE_URL && names) await dropDatabases(process.env.DATABASE_URL, names.split(','));
  const shared = (globalThis as { [key: symbol]: { instance?: Promise<{ close(): Promise<void> }> } | undefined })[Symbol.for('parley.test.sharedPGlite')];
  await (await shared?.instance)?.close();
}
