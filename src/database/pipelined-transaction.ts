import { DataSource, EntityManager } from 'typeorm';

import { bindManagerTo, nodePostgresPool, PgQueryable } from './prepared-statements';

/** What this module needs of a pooled node-postgres client (the pool runs in pipeline mode). */
interface PipelinedClient {
  /** node-postgres's connection; its socket is corked while a group of statements is sent. */
  connection?: { stream?: { cork?: () => void; uncork?: () => void } };
  query(config: string | { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
  getTransactionStatus(): string | null;
  release(err?: Error | boolean): void;
}

interface PgPool {
  connect(): Promise<PipelinedClient>;
}

/**
 * The node-postgres pool behind a PostgreSQL data source, when its clients pipeline
 * (data-source-options.ts sets `pipeline: true`); null on PGlite, whose driver is our own.
 */
export function pipeliningPoolOf(dataSource: DataSource): PgPool | null {
  const extra = (dataSource.options as { extra?: { pipeline?: boolean } }).extra;
  const pool = nodePostgresPool(dataSource);
  return extra?.pipeline === true && typeof pool?.connect === 'function' ? (pool as unknown as PgPool) : null;
}

/** A pipelined transaction as `work` sees it. */
export interface Pipeline {
  /**
   * Runs `send`, which calls statements without awaiting them: they leave in one socket write, in
   * call order (BEGIN before the first group).
   */
  together<R>(send: () => R): R;
  /** Sends COMMIT (once); called inside `together`, it leaves with that group. Resolves once committed. */
  commit(): Promise<void>;
}

/**
 * One transaction on one pooled connection whose statements go out in groups, each group in one
 * socket write and without waiting for each other's answers (docs/decisions.md, "Writes are
 * group-committed"; docs/performance-history.md, "Fourth session"): a turn's transaction is one round trip
 * and one socket write (BEGIN, the reservation, the rows and COMMIT) where it was five of each.
 *
 * `work`'s manager runs `queryRows` (prepared-statements.ts) on the connection, and only that: the
 * statements of fast-insert and the repositories' named queries. When anything fails, every
 * statement sent is waited for and the transaction is rolled back before the connection goes back
 * to the pool; a connection that cannot roll back is closed instead.
 */
export async function pipelinedTransaction<T>(
  dataSource: DataSource,
  pool: PgPool,
  work: (manager: EntityManager, pipeline: Pipeline) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  const sent: Promise<unknown>[] = [];
  let failed: unknown = null;
  const send = <R>(statement: Promise<R>): Promise<R> => {
    sent.push(statement.catch((err: unknown) => (failed ??= err)));
    return statement;
  };
  const connection: PgQueryable = { query: (config) => send(client.query(config)) };
  const manager = dataSource.createEntityManager();
  bindManagerTo(manager, connection);
  let begun = false;
  let committing: Promise<void> | null = null;
  // Nothing sent, nothing to commit.
  const commit = (): Promise<void> => (committing ??= begun ? send(client.query('COMMIT')).then(() => undefined) : Promise.resolve());
  const stream = client.connection?.stream;
  const together = <R>(group: () => R): R => {
    stream?.cork?.();
    try {
      if (!begun) void send(client.query('BEGIN'));
      begun = true;
      return group();
    } finally {
      stream?.uncork?.();
    }
  };
  try {
    const result = await work(manager, { together, commit });
    await commit();
    await Promise.all(sent);
    // A statement `work` did not wait for failed: COMMIT then ended the transaction as a rollback.
    if (failed) throw failed;
    client.release();
    return result;
  } catch (err) {
    await Promise.all(sent);
    let broken: Error | undefined;
    try {
      // 'I': idle, the transaction is over (COMMIT in a failed transaction rolls it back).
      if (client.getTransactionStatus() !== 'I') await client.query('ROLLBACK');
    } catch (rollbackFailed) {
      broken = rollbackFailed as Error;
    }
    client.release(broken);
    throw err;
  }
}
