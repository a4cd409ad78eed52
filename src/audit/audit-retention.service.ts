import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';

import { startPeriodic, stopPeriodic } from '../common/periodic';
import { AppConfig } from '../config/app-config';

const EVERY_MS = 60 * 60 * 1000;
const RETENTION = 'audit-retention';

/**
 * Deletes audit events older than AUDIT_RETENTION_DAYS (default 365), at start and every hour: the
 * projects' trail (audit_events) and the instance's (instance_audit_events), on the same horizon.
 * The only delete either table ever sees: nothing else updates or deletes an event (docs/security.md).
 */
@Injectable()
export class AuditRetentionService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('AuditRetention');

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly schedule: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    const attempt = () => this.expire().catch((err) => this.logger.error(`audit retention failed: ${(err as Error).message}`));
    void attempt();
    startPeriodic(this.schedule, RETENTION, EVERY_MS, () => void attempt());
  }

  onModuleDestroy(): void {
    stopPeriodic(this.schedule, RETENTION);
  }

  /** The events deleted from both trails. `now` is a parameter so retention can be exercised without waiting a year. */
  async expire(now = Date.now()): Promise<number> {
    const horizon = new Date(now - this.config.auditRetentionDays * 24 * 60 * 60 * 1000);
    let deleted = 0;
    for (const table of ['audit_events', 'instance_audit_events']) {
      const [, count] = (await this.dataSource.query(`DELETE FROM ${table} WHERE created_at < $1`, [horizon])) as [unknown, number];
      deleted += count ?? 0;
    }
    if (deleted > 0) this.logger.log(`deleted ${deleted} audit events older than ${horizon.toISOString()}`);
    return deleted;
  }
}
