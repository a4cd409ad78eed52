import { DataSource, EntityManager } from 'typeorm';

import { ResponseEventStore } from './response-event-store';
import type { ResponseEvent } from './response-events';
import { ResponseJobsRepository } from './response-jobs.repository';

/** The run no longer holds its job: another instance took it over (or it finished elsewhere). */
export class LeaseLostError extends Error {
  constructor() {
    super('This instance no longer holds the response job');
  }
}

export interface WriterTarget {
  projectId: string;
  responseId: string;
  owner: string;
  leaseMs: number;
  flushMs: number;
  /** The sequence number of the first event this run writes (after what is stored already). */
  startSequence: number;
}

export interface WriterHooks {
  /** Events just committed, in order: what live clients of this run receive. */
  onStored(events: ResponseEvent[]): void;
  /** The lease was lost, or a cancel was requested: the run must stop calling the provider. */
  onStop(reason: 'lease' | 'cancel'): void;
}

/**
 * One run's stream events on their way to the database: numbered, buffered, and stored in
 * batches at most every `flushMs` (the first at once), each batch in a transaction that also
 * renews the run's lease, so a run that lost its job can never store another event. A heartbeat
 * renews the lease while no event flows (waiting for the first token).
 */
export class ResponseEventWriter {
  private next: number;
  private pending: ResponseEvent[] = [];
  private flushing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private lastFlushAt = 0;
  private stopped = false;
  private failure: unknown = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly store: ResponseEventStore,
    private readonly jobs: ResponseJobsRepository,
    private readonly target: WriterTarget,
    private readonly hooks: WriterHooks,
  ) {
    this.next = target.startSequence;
    this.heartbeat = setInterval(() => void this.beat(), Math.max(200, Math.floor(target.leaseMs / 3)));
    this.heartbeat.unref();
  }

  push(events: ResponseEvent[]): void {
    if (this.stopped || events.length === 0) return;
    for (const event of events) this.pending.push({ ...event, sequence_number: this.next++ });
    this.schedule();
  }

  /** Stores everything pushed so far, outside any transaction (before the final write). */
  async drain(): Promise<void> {
    this.clearTimer();
    while (this.flushing || this.pending.length > 0) {
      if (this.flushing) await this.flushing;
      else await this.flush();
    }
    if (this.failure) throw this.failure;
  }

  /**
   * The last write, in the caller's transaction: what is still buffered and `final`, with the
   * lease checked; throws LeaseLostError when the job is no longer this run's. Hand the answer to
   * `delivered` once the transaction committed.
   */
  private sealed: ResponseEvent[] | null = null;

  async flushIn(manager: EntityManager, final: ResponseEvent[]): Promise<ResponseEvent[]> {
    this.close();
    if (this.flushing) throw new Error('flushIn() while a batch is being stored: drain() first');
    // Numbered once: a transaction tried again (its group commit's batch failed) stores the same events.
    const batch = (this.sealed ??= [...this.pending.splice(0), ...final.map((event) => ({ ...event, sequence_number: this.next++ }))]);
    if (!(await this.jobs.renew(manager, this.target.projectId, this.target.responseId, this.target.owner, this.target.leaseMs)))
      throw new LeaseLostError();
    await this.store.append(manager, this.target.projectId, this.target.responseId, batch);
    return batch;
  }

  delivered(events: ResponseEvent[]): void {
    if (events.length) this.hooks.onStored(events);
  }

  /** Stops timers; nothing more is stored by this writer except through flushIn. */
  close(): void {
    this.clearTimer();
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  private schedule(): void {
    if (this.timer || this.flushing) return;
    const wait = Math.max(0, this.lastFlushAt + this.target.flushMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, wait);
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0 || this.flushing) return;
    const batch = this.pending.splice(0);
    this.lastFlushAt = Date.now();
    this.flushing = (async () => {
      try {
        let lost = false;
        let cancel = false;
        await this.dataSource.transaction(async (manager) => {
          const lease = await this.jobs.renew(
            manager,
            this.target.projectId,
            this.target.responseId,
            this.target.owner,
            this.target.leaseMs,
          );
          if (!lease) return void (lost = true);
          cancel = lease.cancelRequested;
          await this.store.append(manager, this.target.projectId, this.target.responseId, batch);
        });
        if (lost) return this.stop('lease');
        this.hooks.onStored(batch);
        if (cancel) this.stop('cancel');
      } catch (err) {
        this.failure = err;
        this.stop('lease');
      }
    })();
    await this.flushing;
    this.flushing = null;
    if (this.pending.length > 0 && !this.stopped) this.schedule();
  }

  private async beat(): Promise<void> {
    if (this.flushing || Date.now() - this.lastFlushAt < this.target.leaseMs / 3) return;
    try {
      const lease = await this.jobs.renew(null, this.target.projectId, this.target.responseId, this.target.owner, this.target.leaseMs);
      if (!lease) this.stop('lease');
      else if (lease.cancelRequested) this.stop('cancel');
    } catch {
      // The database is away: the next flush or beat tries again; the lease bounds the wait.
    }
  }

  private stop(reason: 'lease' | 'cancel'): void {
    if (reason === 'lease') {
      this.stopped = true;
      this.pending = [];
      this.close();
    }
    this.hooks.onStop(reason);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
