import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { fastInsert } from '../database/fast-insert';
import { GroupCommit, ItemOutcome } from '../database/group-commit';
import { Pipeline, pipelinedTransaction, pipeliningPoolOf } from '../database/pipelined-transaction';
import { MessagesService, ThreadTurn, turnRows } from '../messages/messages.service';
import { RequestLogEntity } from '../request-logs/request-log.entity';
import { RequestLogsService } from '../request-logs/request-logs.service';
import { ThreadsService } from '../threads/threads.service';
import { RowsToInsert } from './invocation.types';
import { threadNotFound } from './invoke-errors';

/** What one successful invoke leaves behind beyond a lone log row. */
export interface TurnRecord {
  log: RequestLogEntity;
  /** The thread it appends to: opened by this call (`createLog` given) or continued. */
  thread: { id: string; createLog: Record<string, unknown> | null; turns: ThreadTurn[] } | null;
  /**
   * More writes of the same call in the same transaction (its Idempotency-Key outcome, a
   * response's end). May run more than once when its batch is retried: no side effect outside
   * the transaction.
   */
  also: ((manager: EntityManager) => Promise<void>) | null;
  /** The surface's own rows (InvocationInput.recordRows), inserted with the batch's rows of the same table. */
  rows: RowsToInsert | null;
}

/** Most calls in one transaction: every one with `also` adds its own statements to it. */
const MAX_BATCH = 64;

/**
 * Group commit of invokes' turns (docs/decisions.md, "Writes are group-committed"). Concurrent
 * calls' records go in one transaction: the threads they open in one INSERT, the sequence numbers
 * of every thread they append to in one statement (reserve_thread_sequences), their logs (with
 * the usage rollups) in one INSERT, their turns in one INSERT, the surfaces' own rows in one
 * INSERT per table, then each call's `also`; one commit, pipelined on PostgreSQL
 * (src/database/pipelined-transaction.ts). `write` resolves once that committed, and rejects with
 * the invoke's 404 "Thread not found" when the thread was deleted while the provider worked
 * (nothing of that call is written; the rest of the batch is).
 */
@Injectable()
export class TurnWriter implements BeforeApplicationShutdown {
  private readonly logger = new Logger('TurnWriter');
  private readonly batches: GroupCommit<TurnRecord>;
  /** PostgreSQL's pool when its connections pipeline; null on PGlite. */
  private readonly pipelining: ReturnType<typeof pipeliningPoolOf>;
  private pipelinedFlushes = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly threads: ThreadsService,
    private readonly messages: MessagesService,
    private readonly requestLogs: RequestLogsService,
    config: AppConfig,
  ) {
    this.pipelining = pipeliningPoolOf(dataSource);
    this.batches = new GroupCommit<TurnRecord>({
      maxInFlight: config.groupCommitInFlight,
      maxBatch: MAX_BATCH,
      flush: (records) => this.flush(records),
      onBatchFailed: (size, err) => this.logger.warn(`batch of ${size} turns failed (${(err as Error).message}); writing them one by one`),
    });
  }

  /** Flushes and calls written, and the flushes that went pipelined, for tests. */
  get stats(): { flushes: number; items: number; pipelined: number } {
    return { ...this.batches.stats, pipelined: this.pipelinedFlushes };
  }

  write(record: TurnRecord): Promise<void> {
    return this.batches.submit(record.log.projectId, record);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.batches.drain();
  }

  /**
   * On PostgreSQL a batch without `also` is one pipelined transaction (two round trips); a batch
   * with `also` (TypeORM calls of its own) and every batch on PGlite is a TypeORM transaction.
   */
  private flush(records: TurnRecord[]): Promise<ItemOutcome[]> {
    if (this.pipelining && records.every((r) => !r.also)) {
      this.pipelinedFlushes++;
      return pipelinedTransaction(this.dataSource, this.pipelining, (manager, pipeline) => this.writeBatch(manager, records, pipeline));
    }
    return this.dataSource.transaction((manager) => this.writeBatch(manager, records, null));
  }

  /**
   * The batch's statements, sent in two groups: the threads it opens and the sequence reservation
   * (whose answer numbers the turns), then everything else; in a pipelined transaction each group is
   * one socket write, and COMMIT goes with the second.
   */
  private async writeBatch(manager: EntityManager, records: TurnRecord[], pipeline: Pipeline | null): Promise<ItemOutcome[]> {
    const opened = records.filter((r) => r.thread?.createLog).map((r) => ({ projectId: r.log.projectId, id: r.thread!.id, createLog: r.thread!.createLog! }));
    const phase: (() => Promise<unknown>)[] = [];
    // Before the reservation, so that it finds the threads opened here.
    if (opened.length > 0) phase.push(() => this.threads.insertMany(manager, opened));
    const demand = new Map<string, { projectId: string; id: string; count: number }>();
    for (const { log, thread } of records) {
      if (!thread || thread.turns.length === 0) continue;
      const key = `${log.projectId}/${thread.id}`;
      const entry = demand.get(key) ?? { projectId: log.projectId, id: thread.id, count: 0 };
      entry.count += thread.turns.length;
      demand.set(key, entry);
    }
    let firsts = new Map<string, number>();
    if (demand.size > 0) phase.push(async () => (firsts = await this.threads.reserveSequences(manager, [...demand.values()])));
    await inOrder(phase, pipeline);
    // Blocks handed out in arrival order: two calls on one thread get consecutive blocks.
    const next = new Map(firsts);
    const outcomes: ItemOutcome[] = [];
    const written: TurnRecord[] = [];
    const rows: ReturnType<typeof turnRows> = [];
    for (const record of records) {
      const { log, thread } = record;
      if (thread && thread.turns.length > 0) {
        const key = `${log.projectId}/${thread.id}`;
        const first = next.get(key);
        if (first === undefined) {
          outcomes.push({ ok: false, error: threadNotFound() });
          continue;
        }
        next.set(key, first + thread.turns.length);
        rows.push(...turnRows(log.projectId, thread.id, first, thread.turns));
      }
      outcomes.push({ ok: true });
      written.push(record);
    }
    const writes: (() => Promise<unknown>)[] = [];
    if (written.length > 0) writes.push(() => this.requestLogs.recordMany(written.map((r) => r.log), manager));
    if (rows.length > 0) writes.push(() => this.messages.insertReserved(manager, rows));
    const others = new Map<EntityTarget<ObjectLiteral>, ObjectLiteral[]>();
    for (const { rows: own } of written) {
      if (!own) continue;
      const same = others.get(own.target);
      if (same) same.push(...own.rows);
      else others.set(own.target, [...own.rows]);
    }
    for (const [target, batch] of others) writes.push(() => fastInsert(manager, target, batch));
    if (pipeline) writes.push(() => pipeline.commit());
    await inOrder(writes, pipeline);
    // Only in a TypeORM transaction (flush sends no batch with `also` down the pipeline).
    for (const record of written) await record.also?.(manager);
    return outcomes;
  }
}

/**
 * Runs statements in order: in a pipelined transaction all sent together (each is sent when called)
 * and then waited for, in a TypeORM one one after another.
 */
async function inOrder(statements: (() => Promise<unknown>)[], pipeline: Pipeline | null): Promise<void> {
  if (pipeline) {
    await pipeline.together(() => Promise.all(statements.map((statement) => statement())));
    return;
  }
  for (const statement of statements) await statement();
}
