import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';

import { startPeriodic, stopPeriodic } from '../common/periodic';
import { AppConfig } from '../config/app-config';
import { ResponseEventStore } from './response-event-store';

const BATCH = 1000;
const RETENTION = 'response-event-retention';

/**
 * Bounded storage: the stream events of responses finished more than RESPONSES_EVENT_RETENTION_S
 * ago are deleted (the responses stay retrievable; only their resumable streams go), a thousand
 * batches at a time, checked every tenth of the retention (at most every minute).
 */
@Injectable()
export class ResponseEventRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Responses');
  private running = false;

  constructor(
    private readonly store: ResponseEventStore,
    private readonly config: AppConfig,
    private readonly schedule: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    const everyMs = Math.min(60_000, Math.max(1000, (this.config.responseJobs.eventRetentionSeconds * 1000) / 10));
    startPeriodic(this.schedule, RETENTION, everyMs, () => void this.prune());
  }

  onModuleDestroy(): void {
    stopPeriodic(this.schedule, RETENTION);
  }

  /** Deletes what is past retention; answers how many batches went. */
  async prune(now = Date.now()): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    let total = 0;
    try {
      const cutoff = new Date(now - this.config.responseJobs.eventRetentionSeconds * 1000);
      for (let deleted = BATCH; deleted === BATCH; total += deleted) deleted = await this.store.prune(cutoff, BATCH);
    } catch (err) {
      this.logger.warn(`could not prune stored response events: ${(err as Error).message}`);
    } finally {
      this.running = false;
    }
    return total;
  }
}
