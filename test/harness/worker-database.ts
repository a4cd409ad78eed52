import { databaseUrlNamed } from './database-url';

/**
 * Runs before every test file, in its worker: on PostgreSQL, DATABASE_URL becomes this worker's own
 * database (a copy of the run's migrated template), so files running at the same time never share
 * rows. On PGlite the worker's one database is test/support/shared-pglite.ts's.
 */
const names = process.env.PARLEY_TEST_WORKER_DATABASES?.split(',');
if (process.env.DATABASE_URL && names && !process.env.PARLEY_TEST_BASE_DATABASE_URL) {
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  process.env.PARLEY_TEST_BASE_DATABASE_URL = process.env.DATABASE_URL;
  process.env.DATABASE_URL = databaseUrlNamed(process.env.DATABASE_URL, names[worker]);
}
