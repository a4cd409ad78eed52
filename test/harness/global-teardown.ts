import { dropDatabases } from './template-databases';

/** Drops the run's PostgreSQL template and worker databases (PGlite's dump stays cached). */
export default async function globalTeardown(): Promise<void> {
  const names = process.env.PARLEY_TEST_WORKER_DATABASES;
  if (process.env.DATABASE_URL && names) await dropDatabases(process.env.DATABASE_URL, names.split(','));
}
