import { createHash } from 'node:crypto';

import { DataSource, EntityManager, QueryFailedError } from 'typeorm';

/**
 * The invoke path's statements as named prepared statements on PostgreSQL. Each is parsed once per
 * pooled connection instead of on every call, and planned once where its estimates do not depend
 * on its parameters (docs/decisions.md, "Prepared statements keep one plan"): for the request log
 * INSERT with its usage rollup that was ~1 ms of PostgreSQL CPU per call (parse ~0.5 ms, plan
 * ~0.5 ms), for a thread's history read ~0.4 ms. A statement's name is a hash
 * of its text, so one name never stands for two texts. PGlite (one in-process session, no parse
 * round trip worth saving) runs them through TypeORM as before.
 */
const names = new Map<string, string>();
/** Statement texts are a handful of shapes (an INSERT per table and set of columns, whatever its rows); bounded anyway. */
const MAX_NAMES = 1000;

export interface PgQueryable {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/** Managers of pipelined transactions (pipelined-transaction.ts) and the connection each one writes on. */
const pipelinedConnections = new WeakMap<EntityManager, PgQueryable>();

/** Routes `queryRows` on `manager` to `connection`: a pipelined transaction's statements. */
export function bindManagerTo(manager: EntityManager, connection: PgQueryable): void {
  pipelinedConnections.set(manager, connection);
}

function nameOf(sql: string): string {
  let name = names.get(sql);
  if (!name) {
    name = `parley_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
    if (names.size >= MAX_NAMES) names.clear();
    names.set(sql, name);
  }
  return name;
}

/**
 * Where a statement goes on PostgreSQL: the pipelined transaction's connection when the manager
 * is one's, the transaction's own connection when the manager is in one, else the pool TypeORM
 * opened (its `query` takes a connection and gives it back). Null on PGlite, whose driver is our
 * own (src/database/data-source-options.ts).
 */
function pgTarget(manager: EntityManager): PgQueryable | null {
  const pipelined = pipelinedConnections.get(manager);
  if (pipelined) return pipelined;
  const pool = nodePostgresPool(manager.connection);
  if (!pool) return null;
  if (manager.queryRunner) {
    const client = (manager.queryRunner as unknown as { databaseConnection?: Partial<PgQueryable> }).databaseConnection;
    return manager.queryRunner.isTransactionActive && typeof client?.query === 'function' ? (client as PgQueryable) : null;
  }
  return typeof pool.query === 'function' ? (pool as PgQueryable) : null;
}

/**
 * The node-postgres pool TypeORM opened for a PostgreSQL data source (what pgTarget and
 * pipelined-transaction.ts send on); null on PGlite, whose driver is our own
 * (src/database/data-source-options.ts).
 */
export function nodePostgresPool(dataSource: DataSource): { query?: unknown; connect?: unknown } | null {
  if ((dataSource.options as { driver?: unknown }).driver !== undefined) return null;
  return (dataSource.driver as unknown as { master?: { query?: unknown; connect?: unknown } }).master ?? null;
}

/**
 * The rows one statement returns (SELECT, or INSERT/UPDATE ... RETURNING). A failure is TypeORM's
 * QueryFailedError on both engines, as `manager.query` would throw.
 */
export async function queryRows<T>(manager: EntityManager, sql: string, parameters: unknown[]): Promise<T[]> {
  const target = pgTarget(manager);
  if (!target) {
    const result: unknown = await manager.query(sql, parameters);
    // TypeORM answers an UPDATE/DELETE ... RETURNING with [rows, rowCount], a SELECT with rows.
    return (/^\s*(UPDATE|DELETE)\b/i.test(sql) ? (result as [T[], number])[0] : result) as T[];
  }
  try {
    return (await target.query({ name: nameOf(sql), text: sql, values: parameters })).rows as T[];
  } catch (err) {
    throw new QueryFailedError(sql, parameters, err as Error);
  }
}

/** One statement whose rows nobody reads (an INSERT). */
export async function runStatement(manager: EntityManager, sql: string, parameters: unknown[]): Promise<void> {
  await queryRows(manager, sql, parameters);
}
