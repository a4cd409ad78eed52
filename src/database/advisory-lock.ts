import type { EntityManager } from 'typeorm';

/** Arbitrary constants naming what PostgreSQL advisory locks serialise across instances. */
export const SEED_LOCK_ID = 72_616_402;

/**
 * Holds a PostgreSQL advisory lock until the manager's transaction ends, so instances starting
 * together take turns. PGlite is one process (DATA_DIR lock) and needs none.
 */
export async function lockForTransaction(manager: EntityManager, lockId: number, embedded: boolean): Promise<void> {
  if (!embedded) await manager.query('SELECT pg_advisory_xact_lock($1)', [lockId]);
}
