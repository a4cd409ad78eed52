/**
 * The part every job worker on the one queue shares (background responses, experiment runs, live
 * grades; docs/architecture.md, "House rules"): passes that run one at a time,
 * where a wake during a pass asks for one more pass after it, so no wake is lost and no two passes
 * claim at once. A pass returns false when there is no room to claim more (no further pass then).
 */
export class JobWakeLoop {
  private busy = false;
  private again = false;
  private stopped = false;

  constructor(
    private readonly pass: () => Promise<boolean>,
    private readonly warn: (err: Error) => void,
  ) {}

  async wake(): Promise<void> {
    if (this.stopped) return;
    if (this.busy) return void (this.again = true);
    this.busy = true;
    try {
      let more: boolean;
      do {
        this.again = false;
        more = await this.pass();
      } while (more && this.again && !this.stopped);
    } catch (err) {
      if (!this.stopped) this.warn(err as Error);
    } finally {
      this.busy = false;
    }
  }

  /** No pass starts after this; one in progress finishes. */
  stop(): void {
    this.stopped = true;
  }

  get isStopped(): boolean {
    return this.stopped;
  }
}

/**
 * Renews a held job's lease every quarter lease while it runs (a renewal that fails is left to
 * the next one, or to the lease expiring); returns the function that stops renewing.
 */
export function holdLease(renew: () => Promise<unknown>, leaseMs: number): () => void {
  const heartbeat = setInterval(() => void renew().catch(() => undefined), Math.floor(leaseMs / 4));
  heartbeat.unref();
  return () => clearInterval(heartbeat);
}
