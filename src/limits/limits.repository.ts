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

/** A cold key's probe across instances (docs/usage.md, "Budgets"): run it, wait for it, or reserve its measured cost. */
export type ProbeClaim = { state: 'won' } | { state: 'wait' } | { state: 'known'; costNano: number };

export interface InflightReport {
  projectId: string;
  scope: string;
  count: number;
}

/** The nil UUID: the project of the heartbeat rows every instance keeps, so each knows how many are live. */
const NIL = '00000000-0000-0000-0000-000000000000';

/** Limit settings and the counters every instance shares (tables limit_settings, limit_counters, limit_inflight). */
@Injectable()
export class LimitsRepository {
  constructor(@InjectRepository(LimitSettingEntity) private readonly settings: Repository<LimitSettingEntity>) {}

  settingsOf(projectId: string): Promise<LimitSettingEntity[]> {
    return this.settings.find({ where: { projectId } });
  }

  settingOf(projectId: string, subject: string, manager: EntityManager): Promise<LimitSettingEntity | null> {
    return manager.getRepository(LimitSettingEntity).findOne({ where: { projectId, subject } });
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

  /**
   * Adds every increment (0 reads the current count) in one statement; returns each window's total.
   * A deleted project's counts (calls admitted on this instance before it went, still unsent) are
   * dropped, not written back after the deletion emptied its rows (docs/security.md, "Deleting a
   * project"): its windows total 0.
   */
  async addToCounters(increments: CounterIncrement[]): Promise<number[]> {
    const rows: { project_id: string; scope: string; window_start: string; count: string }[] = await this.settings.query(
      `INSERT INTO limit_counters (project_id, scope, window_start, count)
       SELECT t.* FROM unnest($1::uuid[], $2::varchar[], $3::bigint[], $4::bigint[]) AS t (project_id, scope, window_start, count)
        WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = t.project_id)
       ON CONFLICT (project_id, scope, window_start) DO UPDATE SET count = limit_counters.count + EXCLUDED.count
       RETURNING project_id, scope, window_start, count`,
      [
        increments.map((i) => i.projectId),
        increments.map((i) => i.scope),
        increments.map((i) => i.windowStart),
        increments.map((i) => i.amount),
      ],
    );
    const totals = new Map(rows.map((row) => [`${row.project_id}|${row.scope}|${row.window_start}`, Number(row.count)]));
    return increments.map((i) => totals.get(`${i.projectId}|${i.scope}|${i.windowStart}`) ?? 0);
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

  /** The totals of some scopes' windows (a budget's day and month), as the database has them. */
  async countersOf(projectId: string, scopes: string[], windowStarts: number[]): Promise<Map<string, number>> {
    const rows: { scope: string; window_start: string; count: string }[] = await this.settings.query(
      `SELECT scope, window_start, count FROM limit_counters WHERE project_id = $1 AND scope = ANY($2::varchar[]) AND window_start = ANY($3::bigint[])`,
      [projectId, scopes, windowStarts],
    );
    return new Map(rows.map((row) => [`${row.scope}|${row.window_start}`, Number(row.count)]));
  }

  /**
   * Takes one concurrency slot of a scope for `instanceId` if the slots of every live instance
   * (reported within `staleSeconds`) stay within `limit`. The advisory lock of the scope makes the
   * sum and the increment one step across instances (docs/security.md, "Limits").
   */
  async takeSlot(projectId: string, scope: string, instanceId: string, limit: number, staleSeconds: number): Promise<boolean> {
    return this.settings.manager.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1::text || '|' || $2::text, 0))`, [projectId, scope]);
      const rows: unknown[] = await manager.query(
        `INSERT INTO limit_inflight AS i (project_id, scope, instance_id, count, updated_at)
         SELECT $1::uuid, $2::varchar, $3::uuid, 1, now()
          WHERE (SELECT coalesce(sum(count), 0) FROM limit_inflight
                  WHERE project_id = $1 AND scope = $2 AND updated_at > now() - make_interval(secs => $5)) + 1 <= $4
         ON CONFLICT (project_id, scope, instance_id) DO UPDATE SET count = i.count + 1, updated_at = now()
         RETURNING 1`,
        [projectId, scope, instanceId, limit, staleSeconds],
      );
      return rows.length > 0;
    });
  }

  /** Gives back slots `instanceId` no longer uses, several scopes in one statement. */
  async giveBackSlots(instanceId: string, returns: InflightReport[]): Promise<void> {
    await this.settings.query(
      `UPDATE limit_inflight AS i SET count = greatest(0, i.count - t.c), updated_at = now()
         FROM unnest($1::uuid[], $2::varchar[], $4::int[]) AS t (p, s, c)
        WHERE i.project_id = t.p AND i.scope = t.s AND i.instance_id = $3`,
      [returns.map((r) => r.projectId), returns.map((r) => r.scope), instanceId, returns.map((r) => r.count)],
    );
  }

  /**
   * This instance is alive: its heartbeat row (the nil project) and every slot row it holds are
   * refreshed. Returns how many other instances reported within `staleSeconds`.
   */
  async heartbeat(instanceId: string, staleSeconds: number): Promise<number> {
    const rows: { others: string }[] = await this.settings.query(
      `WITH beat AS (
         INSERT INTO limit_inflight (project_id, scope, instance_id, count, updated_at)
         VALUES ('${NIL}', 'instance', $1, 1, now())
         ON CONFLICT (project_id, scope, instance_id) DO UPDATE SET updated_at = now()
         RETURNING 1
       ), held AS (
         UPDATE limit_inflight SET updated_at = now() WHERE instance_id = $1 AND count > 0 AND project_id <> '${NIL}' RETURNING 1
       )
       SELECT count(*) AS others FROM limit_inflight
        WHERE project_id = '${NIL}' AND scope = 'instance' AND instance_id <> $1 AND updated_at > now() - make_interval(secs => $2)`,
      [instanceId, staleSeconds],
    );
    return Number(rows[0]?.others ?? 0);
  }

  /**
   * Windows that ended more than two days ago (a month's budget window started at most 31 days
   * before it ended), and in-flight rows of instances gone for a minute.
   */
  async deleteExpired(): Promise<void> {
    await this.settings.query(
      `DELETE FROM limit_counters WHERE window_start < extract(epoch from now())::bigint - 172800
          AND (scope NOT LIKE '%:usd-month' OR window_start < extract(epoch from now())::bigint - 33 * 86400)`,
    );
    await this.settings.query(`DELETE FROM limit_inflight WHERE updated_at < now() - interval '60 seconds'`);
    await this.settings.query(`DELETE FROM limit_budget_probes WHERE expires_at < now() - interval '1 day'`);
  }

  /**
   * One statement: takes the key's probe lease for `holder` when there is none or it expired, else
   * reports the lease held (wait) or the cost it measured (known). The outer SELECT reads the
   * snapshot before the INSERT, so a taken lease is answered by the first branch alone.
   */
  async claimProbe(projectId: string, keyId: string, holder: string, leaseMs: number): Promise<ProbeClaim> {
    const rows: { state: 'won' | 'wait' | 'known'; cost_nano: string | null }[] = await this.settings.query(
      `WITH won AS (
         INSERT INTO limit_budget_probes AS p (project_id, key_id, holder, cost_nano, expires_at)
         VALUES ($1, $2, $3, NULL, now() + make_interval(secs => $4::double precision / 1000))
         ON CONFLICT (project_id, key_id) DO UPDATE SET holder = EXCLUDED.holder, cost_nano = NULL, expires_at = EXCLUDED.expires_at
          WHERE p.expires_at < now()
         RETURNING 1
       )
       SELECT 'won' AS state, NULL AS cost_nano FROM won
       UNION ALL
       SELECT CASE WHEN cost_nano IS NULL THEN 'wait' ELSE 'known' END, cost_nano::text FROM limit_budget_probes
        WHERE project_id = $1 AND key_id = $2 AND NOT EXISTS (SELECT 1 FROM won)`,
      [projectId, keyId, holder, leaseMs],
    );
    const row = rows[0];
    // No row in either branch: the lease expired and was taken again between the two reads; wait.
    if (!row || row.state === 'wait') return { state: 'wait' };
    return row.state === 'won' ? { state: 'won' } : { state: 'known', costNano: Number(row.cost_nano) };
  }

  /** The probe measured the key's cost: others reserve it from now on, for a day (then a key unused that long probes again). */
  async settleProbe(projectId: string, keyId: string, holder: string, costNano: number): Promise<void> {
    await this.settings.query(
      `UPDATE limit_budget_probes SET cost_nano = $4, expires_at = now() + interval '1 day'
        WHERE project_id = $1 AND key_id = $2 AND holder = $3`,
      [projectId, keyId, holder, costNano],
    );
  }

  /** The probe ended without a cost (refused, failed): the next call anywhere may probe at once. */
  async dropProbe(projectId: string, keyId: string, holder: string): Promise<void> {
    await this.settings.query(
      `DELETE FROM limit_budget_probes WHERE project_id = $1 AND key_id = $2 AND holder = $3 AND cost_nano IS NULL`,
      [projectId, keyId, holder],
    );
  }
}
