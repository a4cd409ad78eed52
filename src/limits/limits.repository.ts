import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { LimitSettingEntity } from './limit-setting.entity';

export interface CounterIncrement {
  projectId: string;
  scope: string;
  windowStart: number;
  amount: number;
}

export interface InflightReport {
  projectId: string;
  scope: string;
  count: number;
}

/** Limit settings and the counters every instance shares (tables limit_settings, limit_counters, limit_inflight). */
@Injectable()
export class LimitsRepository {
  constructor(@InjectRepository(LimitSettingEntity) private readonly settings: Repository<LimitSettingEntity>) {}

  settingsOf(projectId: string): Promise<LimitSettingEntity[]> {
    return this.settings.find({ where: { projectId } });
  }

  /**
   * One statement, INSERT ... ON CONFLICT DO UPDATE: concurrent PUTs of the same subject both
   * succeed, the last one wins (a find-then-insert let both insert, and one failed as a 500).
   */
  async saveSetting(setting: LimitSettingEntity, manager?: EntityManager): Promise<void> {
    await (manager ? manager.getRepository(LimitSettingEntity) : this.settings).upsert(setting, {
      conflictPaths: ['projectId', 'subject'],
      skipUpdateIfNoValuesChanged: false,
    });
  }

  async deleteSetting(projectId: string, subject: string, manager?: EntityManager): Promise<void> {
    await (manager ? manager.getRepository(LimitSettingEntity) : this.settings).delete({ projectId, subject });
  }

  /** Adds every increment (0 reads the current count) in one statement; returns each window's total. */
  async addToCounters(increments: CounterIncrement[]): Promise<number[]> {
    const rows: { count: string }[] = await this.settings.query(
      `INSERT INTO limit_counters (project_id, scope, window_start, count)
       SELECT * FROM unnest($1::uuid[], $2::varchar[], $3::bigint[], $4::bigint[])
       ON CONFLICT (project_id, scope, window_start) DO UPDATE SET count = limit_counters.count + EXCLUDED.count
       RETURNING count`,
      [increments.map((i) => i.projectId), increments.map((i) => i.scope), increments.map((i) => i.windowStart), increments.map((i) => i.amount)],
    );
    return rows.map((row) => Number(row.count));
  }

  /** Adds `amount` only if the total stays within `limit`; returns the new total, or null when it would not. */
  async addWithin(increment: CounterIncrement, limit: number): Promise<number | null> {
    const rows: { count: string }[] = await this.settings.query(
      `INSERT INTO limit_counters AS c (project_id, scope, window_start, count)
       SELECT $1::uuid, $2::varchar, $3::bigint, $4::bigint WHERE $4::bigint <= $5::bigint
       ON CONFLICT (project_id, scope, window_start) DO UPDATE SET count = c.count + EXCLUDED.count
        WHERE c.count + EXCLUDED.count <= $5::bigint
       RETURNING count`,
      [increment.projectId, increment.scope, increment.windowStart, increment.amount, limit],
    );
    return rows.length > 0 ? Number(rows[0].count) : null;
  }

  /** Publishes this instance's in-flight counts and returns the other live instances' totals per scope. */
  async exchangeInflight(instanceId: string, reports: InflightReport[], staleSeconds: number): Promise<Map<string, number>> {
    if (reports.length > 0) {
      await this.settings.query(
        `INSERT INTO limit_inflight (project_id, scope, instance_id, count, updated_at)
         SELECT p, s, $3::uuid, c, now() FROM unnest($1::uuid[], $2::varchar[], $4::int[]) AS t (p, s, c)
         ON CONFLICT (project_id, scope, instance_id) DO UPDATE SET count = EXCLUDED.count, updated_at = now()`,
        [reports.map((r) => r.projectId), reports.map((r) => r.scope), instanceId, reports.map((r) => r.count)],
      );
    }
    const projects = [...new Set(reports.map((r) => r.projectId))];
    if (projects.length === 0) return new Map();
    const rows: { project_id: string; scope: string; total: string }[] = await this.settings.query(
      `SELECT project_id, scope, sum(count) AS total FROM limit_inflight
        WHERE project_id = ANY($1::uuid[]) AND instance_id <> $2 AND updated_at > now() - make_interval(secs => $3)
        GROUP BY project_id, scope`,
      [projects, instanceId, staleSeconds],
    );
    return new Map(rows.map((row) => [`${row.project_id}|${row.scope}`, Number(row.total)]));
  }

  /** Windows that ended more than two days ago, and in-flight rows of instances gone for a minute. */
  async deleteExpired(): Promise<void> {
    await this.settings.query(`DELETE FROM limit_counters WHERE window_start < extract(epoch from now())::bigint - 172800`);
    await this.settings.query(`DELETE FROM limit_inflight WHERE updated_at < now() - interval '60 seconds'`);
  }
}
