import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';

const EVERY_MS = 60 * 60 * 1000;

/**
 * USAGE_RETENTION_DAYS: deletes hourly usage rollups older than that, at start and every hour
 * (docs/usage.md, "Retention"). Independent of LOG_RETENTION_DAYS: rollups are small and usually
 * kept longer than the logs they sum.
 */
@Injectable()
export class UsageRetentionService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('UsageRetention');
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.usageRetentionDays === undefined) return;
    const attempt = () => void this.deleteExpired().catch((err) => this.logger.error(`usage rollup retention failed: ${(err as Error).message}`));
    attempt();
    this.timer = setInterval(attempt, EVERY_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** Per project, through the (project_id, hour, ...) index; `now` is a parameter for tests. */
  async deleteExpired(now = Date.now()): Promise<number> {
    const days = this.config.usageRetentionDays;
    if (days === undefined) return 0;
    const horizon = new Date(now - days * 86_400_000);
    const result: [unknown, number] = await this.dataSource.query(
      `DELETE FROM usage_rollups WHERE project_id = ANY (ARRAY(SELECT id FROM projects)) AND hour < $1`,
      [horizon],
    );
    const deleted = Array.isArray(result) ? Number(result[1] ?? 0) : 0;
    if (deleted > 0) this.logger.log(`deleted ${deleted} usage rollups older than ${days} days`);
    return deleted;
  }
}
