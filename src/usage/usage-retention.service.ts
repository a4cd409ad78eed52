import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';

import { startPeriodic, stopPeriodic } from '../common/periodic';
import { AppConfig } from '../config/app-config';

const EVERY_MS = 60 * 60 * 1000;
const RETENTION = 'usage-retention';

/**
 * USAGE_RETENTION_DAYS: deletes hourly usage rollups older than that, at start and every hour
 * (docs/usage.md, "Retention"). Independent of LOG_RETENTION_DAYS: rollups are small and usually
 * kept longer than the logs they sum.
 */
@Injectable()
export class UsageRetentionService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('UsageRetention');

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly schedule: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.usageRetentionDays === undefined) return;
    const attempt = () =>
      void this.deleteExpired().catch((err) => this.logger.error(`usage rollup retention failed: ${(err as Error).message}`));
    attempt();
    startPeriodic(this.schedule, RETENTION, EVERY_MS, attempt);
  }

  onModuleDestroy(): void {
    stopPeriodic(this.schedule, RETENTION);
  }

  /**
   * Per project, through the (project_id, hour or day, ...) indexes; `now` is a parameter for tests.
   * The horizon is the start of a UTC day, so the hourly and daily rollups kept cover the same hours.
   */
  async deleteExpired(now = Date.now()): Promise<number> {
    const days = this.config.usageRetentionDays;
    if (days === undefined) return 0;
    const horizon = new Date(Math.floor((now - days * 86_400_000) / 86_400_000) * 86_400_000);
    const [hourly, daily] = await this.dataSource.transaction(async (m) => [
      await m.query(`DELETE FROM usage_rollups WHERE project_id = ANY (ARRAY(SELECT id FROM projects)) AND hour < $1`, [horizon]),
      await m.query(`DELETE FROM usage_rollups_daily WHERE project_id = ANY (ARRAY(SELECT id FROM projects)) AND day < $1`, [horizon]),
    ]);
    const deleted = countOf(hourly) + countOf(daily);
    if (deleted > 0) this.logger.log(`deleted ${deleted} hourly and daily usage rollups older than ${days} days`);
    return deleted;
  }
}

function countOf(result: unknown): number {
  return Array.isArray(result) ? Number(result[1] ?? 0) : 0;
}
