import { DataSource } from 'typeorm';

import type { SchemaMode } from '../config/app-config';
import { checkDistributable, partitionProjectTables } from './partitioned-schema';

/** An arbitrary constant: the advisory lock every Parley instance takes before migrating. */
const MIGRATION_LOCK_ID = 72_616_401;

/**
 * Runs pending migrations. Several instances may start at once against one PostgreSQL, so they
 * queue on an advisory lock and the later ones find nothing left to do. PGlite belongs to one
 * process (DATA_DIR lock) and needs no lock; taking one there would also hold its only session.
 * With nothing pending no lock is taken: behind pgbouncer in transaction mode a session-level
 * advisory lock could be taken on one server connection and released on another (run `parley
 * migrate` on a direct connection first; docs/scaling.md). In SCHEMA_MODE=partitioned the
 * project-scoped tables are then hash-partitioned (see partitioned-schema.ts), under the lock.
 */
export async function runMigrations(dataSource: DataSource, embedded: boolean, schemaMode: SchemaMode = 'plain'): Promise<string[]> {
  const migrate = async () => {
    const applied = (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
    if (schemaMode === 'partitioned') await partitionSchema(dataSource);
    return applied;
  };
  if (embedded) return migrate();
  if (schemaMode === 'plain' && !(await hasPendingMigrations(dataSource))) return [];
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    try {
      return await migrate();
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    }
  } finally {
    await runner.release();
  }
}

async function partitionSchema(dataSource: DataSource): Promise<void> {
  await dataSource.transaction(async (manager) => {
    await partitionProjectTables(manager);
    const violations = await checkDistributable(manager);
    if (violations.length > 0) throw new Error(`The schema is not distributable by project_id:\n  ${violations.join('\n  ')}`);
  });
}

/** Read-only (TypeORM's showMigrations creates the migrations table, which is racy outside the lock). */
async function hasPendingMigrations(dataSource: DataSource): Promise<boolean> {
  const [{ present }]: { present: boolean }[] = await dataSource.query(`SELECT to_regclass('migrations') IS NOT NULL AS present`);
  if (!present) return true;
  const applied = new Set((await dataSource.query('SELECT name FROM migrations')).map((row: { name: string }) => row.name));
  return dataSource.migrations.some((migration) => !applied.has(migration.name ?? migration.constructor.name));
}
