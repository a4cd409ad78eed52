import { Injectable, Logger, BeforeApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { RequestLogEntity } from './request-log.entity';
import { RequestLogsRepository } from './request-logs.repository';

/** Most rows in one INSERT (34 parameters each: far under PostgreSQL's 65,535). */
const MAX_BATCH = 200;

interface Pending {
  log: RequestLogEntity;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit of request logs written outside a thread transaction (docs/decisions.md, "Request
 * logs are group-committed"). `write` resolves once the row is committed, so a call is answered
 * only after its log is durable. Rows arriving while a flush is in flight wait for a free flush
 * slot and then go together in one multi-row INSERT, one commit; a lone call flushes at the end
 * of its event-loop turn, so no timer adds latency when the server is idle.
 */
@Injectable()
export class RequestLogWriter implements BeforeApplicationShutdown {
  private readonly logger = new Logger('RequestLogWriter');
  private queue: Pending[] = [];
  private inFlight = 0;
  private scheduled = false;
  /** PGlite is one session: a second flush would only queue behind the first. */
  private readonly maxInFlight: number;
  /** Flushes and rows written, for tests and metrics. */
  readonly stats = { flushes: 0, rows: 0 };

  constructor(
    private readonly logs: RequestLogsRepository,
    config: AppConfig,
  ) {
    this.maxInFlight = config.embedded ? 1 : Math.max(1, Math.floor(config.dbPoolSize / 4));
  }

  write(log: RequestLogEntity): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ log, resolve, reject });
      this.schedule();
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    while (this.queue.length > 0 || this.inFlight > 0) {
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
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      this.inFlight++;
      void this.flush(batch).finally(() => {
        this.inFlight--;
        if (this.queue.length > 0) this.schedule();
      });
    }
  }

  private async flush(batch: Pending[]): Promise<void> {
    try {
      await this.logs.insertMany(batch.map((p) => p.log));
      this.stats.flushes++;
      this.stats.rows += batch.length;
      for (const p of batch) p.resolve();
    } catch (err) {
      if (batch.length === 1) return batch[0].reject(err);
      // One bad row must not fail its neighbours: each goes alone, and only it fails.
      this.logger.warn(`batch of ${batch.length} request logs failed (${(err as Error).message}); writing them one by one`);
      await Promise.all(batch.map((p) => this.flush([p])));
    }
  }
}
