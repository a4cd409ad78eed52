import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';

import { AppConfig } from '../config/app-config';
import { fastInsert } from '../database/fast-insert';
import { GroupCommit, ItemOutcome } from '../database/group-commit';
import { Pipeline, pipelinedTransaction, pipeliningPoolOf } from '../database/pipelined-transaction';
import { MessageStore, ThreadTurn, turnRows } from '../messages/message-store';
import { RequestLogEntity } from '../request-logs/request-log.entity';
import { RequestLogsService } from '../request-logs/request-logs.service';
import { ThreadStore } from '../threads/thread-store';
import { isThreadNotLive, SequenceDemand } from '../threads/threads.repository';
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
 * of every thread they append to in one statement, their logs (with the usage rollups) in one
 * INSERT, their turns in one INSERT, the surfaces' own rows in one INSERT per table, then each
 * call's `also`; one commit, on PostgreSQL in one round trip (src/database/pipelined-transaction.ts,
 * writeAtOnce). `write` resolves once that committed, and rejects with
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
  private twoTripBatches = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly threads: ThreadStore,
    private readonly messages: MessageStore,
    private readonly requestLogs: RequestLogsService,
    config: AppConfig,
  ) {
    this.pipelining = pipeliningPoolOf(dataSource);
    this.batches = new GroupCommit<TurnRecord>({
      maxInFlight: config.groupCommitInFlight,
      gather: config.groupCommitGather,
      maxBatch: MAX_BATCH,
      flush: (records) => this.flush(records),
      onBatchFailed: (size, err) => this.logger.warn(`batch of ${size} turns failed (${(err as Error).message}); writing them one by one`),
    });
  }

  /** Flushes and calls written, the transactions that went pipelined, and the batches written again in two round trips, for tests. */
  get stats(): { flushes: number; items: number; pipelined: number; twoTrips: number } {
    return { ...this.batches.stats, pipelined: this.pipelinedFlushes, twoTrips: this.twoTripBatches };
  }

  write(record: TurnRecord): Promise<void> {
    return this.batches.submit(record.log.projectId, record);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.batches.drain();
  }

  /**
   * A batch is first written in one round trip (writeAtOnce). When a thread of it was deleted while
   * its call ran, that transaction fails whole, and the batch is written again in two round trips
   * (writeInTwoTrips), which answers that call alone with its 404.
   */
  private async flush(records: TurnRecord[]): Promise<ItemOutcome[]> {
    try {
      return await this.inTransaction(records, (manager, pipeline) => this.writeAtOnce(manager, records, pipeline));
    } catch (err) {
      if (!isThreadNotLive(err)) throw err;
      this.twoTripBatches++;
      return this.inTransaction(records, (manager, pipeline) => this.writeInTwoTrips(manager, records, pipeline));
    }
  }

  /**
   * On PostgreSQL a batch without `also` is one pipelined transaction; a batch with `also` (TypeORM
   * calls of its own) and every batch on PGlite is a TypeORM transaction.
   */
  private inTransaction<T>(records: TurnRecord[], work: (manager: EntityManager, pipeline: Pipeline | null) => Promise<T>): Promise<T> {
    if (this.pipelining && records.every((r) => !r.also)) {
      this.pipelinedFlushes++;
      return pipelinedTransaction(this.dataSource, this.pipelining, work);
    }
    return this.dataSource.transaction((manager) => work(manager, null));
  }

  /**
   * The whole batch in one group of statements (in a pipelined transaction one socket write, COMMIT
   * included): the threads it opens, the reservation, which fails the transaction if a thread is
   * not live (ThreadStore.reserveSequencesOrFail), the logs, and the turns numbered back from
   * each thread's last_seq as the reservation left it (MessageStore.insertCountedBack), so no
   * statement waits for another's answer. Every call succeeds or the transaction fails whole.
   */
  private async writeAtOnce(manager: EntityManager, records: TurnRecord[], pipeline: Pipeline | null): Promise<ItemOutcome[]> {
    const demand = demandOf(records);
    // Blocks handed out in arrival order, counted back from the end of each thread's reservation.
    const taken = new Map<string, number>();
    const rows: ReturnType<typeof turnRows> = [];
    for (const { log, thread } of records) {
      if (!thread || thread.turns.length === 0) continue;
      const key = `${log.projectId}/${thread.id}`;
      const before = taken.get(key) ?? 0;
      taken.set(key, before + thread.turns.length);
      rows.push(...turnRows(log.projectId, thread.id, before + 1 - demand.get(key)!.count, thread.turns));
    }
    const statements = this.openingStatements(manager, records);
    if (demand.size > 0) statements.push(() => this.threads.reserveSequencesOrFail(manager, [...demand.values()]));
    statements.push(() =>
      this.requestLogs.recordMany(
        records.map((r) => r.log),
        manager,
      ),
    );
    if (rows.length > 0) statements.push(() => this.messages.insertCountedBack(manager, rows));
    statements.push(...this.surfaceStatements(manager, records));
    if (pipeline) statements.push(() => pipeline.commit());
    await inOrder(statements, pipeline);
    for (const record of records) await record.also?.(manager);
    return records.map(() => ({ ok: true }));
  }

  /** The INSERT of the threads the batch opens: before the reservation, so that it finds them. */
  private openingStatements(manager: EntityManager, records: TurnRecord[]): (() => Promise<unknown>)[] {
    const opened = records
      .filter((r) => r.thread?.createLog)
      .map((r) => ({ projectId: r.log.projectId, id: r.thread!.id, createLog: r.thread!.createLog! }));
    return opened.length > 0 ? [() => this.threads.insertMany(manager, opened)] : [];
  }

  /** The surfaces' own rows of these calls, one INSERT per table. */
  private surfaceStatements(manager: EntityManager, records: TurnRecord[]): (() => Promise<unknown>)[] {
    const others = new Map<EntityTarget<ObjectLiteral>, ObjectLiteral[]>();
    for (const { rows: own } of records) {
      if (!own) continue;
      const same = others.get(own.target);
      if (same) same.push(...own.rows);
      else others.set(own.target, [...own.rows]);
    }
    return [...others].map(
      ([target, batch]) =>
        () =>
          fastInsert(manager, target, batch),
    );
  }

  /**
   * The fallback when a thread is not live (writeAtOnce failed): the batch's statements in two
   * groups, the threads it opens and the sequence reservation (whose answer numbers the turns and
   * says which calls lost their thread), then everything else for the other calls; in a pipelined
   * transaction each group is one socket write, and COMMIT goes with the second.
   */
  private async writeInTwoTrips(manager: EntityManager, records: TurnRecord[], pipeline: Pipeline | null): Promise<ItemOutcome[]> {
    const phase = this.openingStatements(manager, records);
    const demand = demandOf(records);
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
    if (written.length > 0)
      writes.push(() =>
        this.requestLogs.recordMany(
          written.map((r) => r.log),
          manager,
        ),
      );
    if (rows.length > 0) writes.push(() => this.messages.insertReserved(manager, rows));
    writes.push(...this.surfaceStatements(manager, written));
    if (pipeline) writes.push(() => pipeline.commit());
    await inOrder(writes, pipeline);
    // Only in a TypeORM transaction (flush sends no batch with `also` down the pipeline).
    for (const record of written) await record.also?.(manager);
    return outcomes;
  }
}

/** Turns asked of each thread by the batch's calls, by `projectId/threadId`, in arrival order. */
function demandOf(records: TurnRecord[]): Map<string, SequenceDemand> {
  const demand = new Map<string, SequenceDemand>();
  for (const { log, thread } of records) {
    if (!thread || thread.turns.length === 0) continue;
    const key = `${log.projectId}/${thread.id}`;
    const entry = demand.get(key) ?? { projectId: log.projectId, id: thread.id, count: 0 };
    entry.count += thread.turns.length;
    demand.set(key, entry);
  }
  return demand;
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
