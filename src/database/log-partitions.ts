/**
 * request_logs is partitioned by RANGE (id), one partition per calendar month (UTC). Ids are
 * UUIDv7, whose first 48 bits are the creation time in milliseconds, so a month boundary is a UUID
 * bound: the primary key (project_id, id) stays, keyset pages by id stay, a lookup by id touches one
 * partition, and retention drops whole partitions (docs/operations.md, "Request log partitions").
 */

/** Anything that runs SQL: a TypeORM QueryRunner, EntityManager or DataSource. */
export interface SqlRunner {
  query(sql: string, parameters?: unknown[]): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export const LOGS_TABLE = 'request_logs';
/** Partitions kept ready beyond the current month, so no insert ever finds its month missing. */
export const MONTHS_AHEAD = 2;
const LOCK_ID = 72_616_402;

/** The smallest UUIDv7-ordered id of a millisecond: its time bits, every other bit zero. */
export function uuidBoundOf(ms: number): string {
  const hex = Math.max(0, ms).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

/** The creation time (ms) a UUIDv7 id or bound carries. */
export function msOfUuid(id: string): number {
  return parseInt(id.replace(/-/g, '').slice(0, 12), 16);
}

export function monthStart(ms: number, plusMonths = 0): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + plusMonths, 1);
}

export function partitionName(fromMs: number): string {
  const d = new Date(fromMs);
  return `${LOGS_TABLE}_${d.getUTCFullYear()}_${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The DDL of one month's partition (one place, so another schema mode can sub-partition it). */
export function createPartitionSql(name: string, fromMs: number, toMs: number): string {
  return `CREATE TABLE "${name}" PARTITION OF ${LOGS_TABLE} FOR VALUES FROM ('${uuidBoundOf(fromMs)}') TO ('${uuidBoundOf(toMs)}')`;
}

export interface LogPartition {
  name: string;
  /** Upper bound (exclusive) as ms; every row of the partition is older. */
  toMs: number;
}

/** The partitions of request_logs with their upper bounds, oldest first. */
export async function listPartitions(sql: SqlRunner): Promise<LogPartition[]> {
  const rows: { name: string; bound: string }[] = await sql.query(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = $1::regclass`,
    [LOGS_TABLE],
  );
  return rows
    .map((row) => ({ name: row.name, toMs: msOfUuid(/TO \('([0-9a-f-]{36})'\)/.exec(row.bound)?.[1] ?? 'f'.repeat(32)) }))
    .sort((a, b) => a.toMs - b.toMs);
}

/**
 * Creates the monthly partitions missing up to MONTHS_AHEAD months after `now`'s month, and, when
 * `retentionDays` is set, drops every partition whose newest possible row is older than that:
 * whole tables, never row deletes. Several instances may run it at once: they queue on an
 * advisory lock held by the transaction. Returns what it created and dropped.
 */
export async function maintainPartitions(
  runInTransaction: <T>(work: (sql: SqlRunner) => Promise<T>) => Promise<T>,
  now: number,
  retentionDays: number | undefined,
): Promise<{ created: string[]; dropped: string[] }> {
  return runInTransaction(async (sql) => {
    await sql.query('SELECT pg_advisory_xact_lock($1)', [LOCK_ID]);
    // DDL waits for a lock on request_logs, and inserts would queue behind it: give up instead, and retry later.
    await sql.query(`SET LOCAL lock_timeout = '5s'`);
    const partitions = await listPartitions(sql);
    const created: string[] = [];
    const target = monthStart(now, MONTHS_AHEAD + 1);
    let top = partitions.length > 0 ? partitions[partitions.length - 1].toMs : monthStart(now);
    while (top < target) {
      const next = monthStart(top, 1);
      const name = partitionName(top);
      await sql.query(createPartitionSql(name, top, next));
      created.push(name);
      top = next;
    }
    const dropped: string[] = [];
    if (retentionDays !== undefined && retentionDays > 0) {
      const horizon = now - retentionDays * 86_400_000;
      for (const partition of partitions) {
        if (partition.toMs > horizon) break;
        await sql.query(`DROP TABLE "${partition.name}"`);
        dropped.push(partition.name);
      }
    }
    return { created, dropped };
  });
}
