/**
 * What a flush says of each item of its batch: done (with what a read found), or failed on its own
 * (the others done).
 */
export type ItemOutcome<R = void> = { ok: true; value?: R } | { ok: false; error: unknown };

export interface GroupCommitOptions<T, R = void> {
  /** At most this many flushes at a time (each holds one database connection while it runs). */
  maxInFlight: number;
  /** At most this many items in one flush. */
  maxBatch: number;
  /**
   * Writes a batch in one transaction and says what became of each item. Throwing fails the whole
   * batch: then, if it held more than one item, each is flushed again on its own, so one bad item
   * never fails its neighbours (the flush must therefore have no side effect a rollback leaves).
   */
  flush: (items: T[]) => Promise<ItemOutcome<R>[]>;
  /**
   * Wait for the end of the event-loop turn before a flush even when nothing is being written.
   * For PGlite, which answers inside the event loop: a flush there ends before the next call
   * reaches it, so without the wait every item goes alone (docs/testing.md, "Where the time goes").
   */
  gather?: boolean;
  /** Told when a batch failed as a whole and is retried item by item. */
  onBatchFailed?: (size: number, err: unknown) => void;
}

interface Pending<T, R> {
  item: T;
  resolve: (value: R) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit (docs/decisions.md, "Writes are group-committed"): `submit` resolves once the
 * item's transaction committed, so a call answered after it is durable. An item that finds nothing
 * being written goes at once; items arriving while flushes are busy wait for a free slot (taken at
 * the end of their event-loop turn) and then go together, one transaction and one commit for the
 * batch. No timer: an idle server adds no latency.
 *
 * Items wait per key (the project) and a batch takes them in turn, one per key per round: a
 * project that queues thousands of writes delays another project's write by at most one flush.
 */
export class GroupCommit<T, R = void> {
  /** Per key, oldest first; a Map keeps the keys in arrival order. */
  private readonly queues = new Map<string, Pending<T, R>[]>();
  private queued = 0;
  private inFlight = 0;
  private scheduled = false;
  /** Flushes and items written, for tests and metrics. */
  readonly stats = { flushes: 0, items: 0 };

  constructor(private readonly options: GroupCommitOptions<T, R>) {}

  submit(key: string, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.queues.get(key);
      if (queue) queue.push({ item, resolve, reject });
      else this.queues.set(key, [{ item, resolve, reject }]);
      this.queued++;
      // Nothing being written: this item goes at once, alone (no event-loop turn of delay for a
      // lone call); the ones arriving while it is written go together after it.
      if (this.inFlight === 0 && !this.options.gather) this.flushIfFree();
      else this.schedule();
    });
  }

  /** Items queued or being written. */
  get busy(): boolean {
    return this.queued > 0 || this.inFlight > 0;
  }

  /** Resolves once everything submitted so far is written (or failed). */
  async drain(): Promise<void> {
    while (this.busy) {
      this.flushIfFree();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flushIfFree();
    });
  }

  private flushIfFree(): void {
    while (this.inFlight < this.options.maxInFlight && this.queued > 0) {
      const batch = this.takeBatch();
      this.inFlight++;
      void this.flush(batch).finally(() => {
        this.inFlight--;
        if (this.queued > 0) this.schedule();
      });
    }
  }

  /** One item per key per round, keys in turn, until the batch is full or nothing waits. */
  private takeBatch(): Pending<T, R>[] {
    const batch: Pending<T, R>[] = [];
    while (batch.length < this.options.maxBatch && this.queued > 0) {
      // A snapshot of the keys: a key put back at the end waits for the next round.
      for (const key of [...this.queues.keys()]) {
        const queue = this.queues.get(key)!;
        batch.push(queue.shift()!);
        this.queued--;
        // A key served goes to the back, so the next batch starts with the ones this one reached last.
        this.queues.delete(key);
        if (queue.length > 0) this.queues.set(key, queue);
        if (batch.length === this.options.maxBatch) break;
      }
    }
    return batch;
  }

  private async flush(batch: Pending<T, R>[]): Promise<void> {
    let outcomes: ItemOutcome<R>[];
    try {
      outcomes = await this.options.flush(batch.map((p) => p.item));
    } catch (err) {
      if (batch.length === 1) return batch[0].reject(err);
      this.options.onBatchFailed?.(batch.length, err);
      await Promise.all(batch.map((p) => this.flush([p])));
      return;
    }
    this.stats.flushes++;
    batch.forEach((p, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) {
        this.stats.items++;
        p.resolve(outcome.value as R);
      } else {
        p.reject(outcome.error);
      }
    });
  }
}
