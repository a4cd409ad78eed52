import type { Results } from '@electric-sql/pglite';
import { PGlitePool } from 'typeorm-pglite/dist/pglite-pool';

const ACQUIRE_TIMEOUT_MS = 30_000;

type QueryCallback = (error: unknown, results: Results<unknown> | null) => void;
type ConnectCallback = (error: unknown, client: PGlitePool | null, done: (err?: unknown) => void) => void;

/**
 * PGlite is one database session. typeorm-pglite hands that same session to every TypeORM
 * "connection", so two concurrent transactions would interleave their statements. This pool lends
 * the session to one query runner at a time: connect() waits until the previous borrower released
 * it. PGlite runs one statement at a time anyway, so nothing is lost but the interleaving.
 */
export class PGliteExclusivePool extends PGlitePool {
  private tail: Promise<void> = Promise.resolve();

  override async connect(callback: ConnectCallback): Promise<void> {
    let release!: () => void;
    const turn = new Promise<void>((resolve) => (release = resolve));
    const previous = this.tail;
    this.tail = previous.then(() => turn);

    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), ACQUIRE_TIMEOUT_MS);
      timer.unref();
    });
    const outcome = await Promise.race([previous.then(() => 'ready' as const), timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      // Give our place back once the holder is done, so the queue keeps moving.
      void previous.then(release);
      callback(new Error('Embedded database busy: timed out waiting for the session'), null, () => undefined);
      return;
    }

    let released = false;
    const done = () => {
      if (!released) {
        released = true;
        release();
      }
    };
    await super.connect((error, client) => {
      if (error) done();
      callback(error, client, done);
    });
  }

  /**
   * node-postgres reports `command` and `rowCount`, from which TypeORM derives `affected` and the
   * shape of UPDATE ... RETURNING results; PGlite reports `affectedRows`. Translated here so
   * repository code behaves the same on both engines.
   */
  override async query(sql: string, params?: unknown[] | QueryCallback, callback?: QueryCallback): Promise<Results<unknown>> {
    const cb = typeof params === 'function' ? params : callback;
    const values = typeof params === 'function' ? undefined : params;
    try {
      const results = (await super.query(sql, values)) as { rows: unknown[]; affectedRows?: number };
      const command = /^\s*([A-Za-z]+)/.exec(sql)?.[1]?.toUpperCase() ?? '';
      const shaped = { ...results, command, rowCount: results.affectedRows ?? results.rows.length } as Results<unknown>;
      cb?.(null, shaped);
      return shaped;
    } catch (error) {
      cb?.(error, null);
      throw error;
    }
  }
}
