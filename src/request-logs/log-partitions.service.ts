import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';

import { startPeriodic, stopPeriodic } from '../common/periodic';
import { AppConfig } from '../config/app-config';
import { maintainPartitions } from '../database/log-partitions';

/** How often the server checks the partitions ahead and the retention horizon. */
const EVERY_MS = 60 * 60 * 1000;
const MAINTENANCE = 'request-log-partitions';

/**
 * Keeps request_logs' monthly partitions created ahead and drops the expired ones
 * (LOG_RETENTION_DAYS), at start and every hour; see docs/operations.md.
 */
@Injectable()
export class LogPartitionsService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('RequestLogPartitions');

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly schedule: SchedulerRegistry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // A failure (a lock not granted in time) is logged and retried within the hour: the
    // partitions of the months ahead already exist, so nothing waits on it.
    const attempt = () =>
      this.maintain().catch((err) => this.logger.error(`request log partition maintenance failed: ${(err as Error).message}`));
    await attempt();
    startPeriodic(this.schedule, MAINTENANCE, EVERY_MS, () => void attempt());
  }

  onModuleDestroy(): void {
    stopPeriodic(this.schedule, MAINTENANCE);
  }

  /** `now` is a parameter so retention can be exercised without waiting months. */
  async maintain(now = Date.now()): Promise<{ created: string[]; dropped: string[] }> {
    const result = await maintainPartitions(
      (work) => this.dataSource.transaction((manager) => work(manager)),
      now,
      this.config.logRetentionDays,
    );
    if (result.created.length > 0) this.logger.log(`created request log partitions ${result.created.join(', ')}`);
    if (result.dropped.length > 0) this.logger.log(`dropped expired request log partitions ${result.dropped.join(', ')}`);
    return result;
  }
}
