import { DataSource } from 'typeorm';

/** An arbitrary constant: the advisory lock every Parley instance takes before migrating. */
const MIGRATION_LOCK_ID = 72_616_401;

/**
 * Runs pending migrations. Several instances may start at once against one PostgreSQL, so they
 * queue on an advisory lock and the later ones find nothing left to do. PGlite belongs to one
 * process (DATA_DIR lock) and needs no lock; taking one there would also hold its only session.
 */
export async function runMigrations(dataSource: DataSource, embedded: boolean): Promise<string[]> {
  if (embedded) return (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    try {
      return (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    }
  } finally {
    await runner.release();
  }
}
