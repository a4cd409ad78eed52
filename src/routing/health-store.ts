import { DataSource } from 'typeorm';

import { ChangeNotifier } from '../database/changes';
import type { HealthChange } from './health-state';
import type { TargetRef } from './target-health';

/** Rows read at start and after a notification gap; more would be a configuration gone wrong. */
const MAX_ROWS = 10_000;

export interface StoredCooldown {
  target: TargetRef;
  until: number;
  trips: number;
}

/**
 * routing_target_health: one row per target cooling down (or whose cooldown ended unprobed), so
 * an instance that starts, or whose listener reconnects, knows what the others tripped. Each
 * write publishes its change in its own transaction; both are conditional on the cooldown's end,
 * so a late write never undoes a later trip (docs/routing.md, "Health").
 */
export class HealthStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: ChangeNotifier,
  ) {}

  /** Writes a trip or a recovery and publishes it with it; false when a later one was stored already. */
  write(change: HealthChange): Promise<boolean> {
    const { projectId, provider, model } = change.target;
    return this.dataSource.transaction(async (manager) => {
      const until = new Date(change.until).toISOString();
      const rows: unknown[] =
        change.kind === 'trip'
          ? await manager.query(
              `INSERT INTO routing_target_health (project_id, provider, model, cooldown_until, trips, failures, reason, updated_at)
               VALUES ($1, $2, $3, $4::timestamptz, $5, $6, $7, now())
               ON CONFLICT (project_id, provider, model) DO UPDATE
                 SET cooldown_until = EXCLUDED.cooldown_until, trips = EXCLUDED.trips, failures = EXCLUDED.failures,
                     reason = EXCLUDED.reason, updated_at = now()
                 WHERE routing_target_health.cooldown_until < EXCLUDED.cooldown_until
               RETURNING 1`,
              [projectId, provider, model, until, change.trips, change.failures, change.reason],
            )
          : await manager.query(
              `DELETE FROM routing_target_health
               WHERE project_id = $1 AND provider = $2 AND model = $3 AND cooldown_until <= $4::timestamptz
               RETURNING 1`,
              [projectId, provider, model, until],
            );
      if (rows.length === 0) return false;
      const trips = change.kind === 'trip' ? change.trips : 0;
      await this.changes.publish({ kind: 'target-health', projectId, provider, model, until: change.until, trips }, manager);
      return true;
    });
  }

  /** Every stored cooldown that still matters (ended less than `relevantMs` ago or later). */
  async load(relevantMs: number): Promise<StoredCooldown[]> {
    const rows: { project_id: string; provider: string; model: string; until: string | number; trips: number }[] =
      await this.dataSource.query(
        `SELECT project_id, provider, model, round(extract(epoch FROM cooldown_until) * 1000)::float8 AS until, trips
         FROM routing_target_health
         WHERE cooldown_until > now() - $1 * interval '1 millisecond'
         LIMIT ${MAX_ROWS}`,
        [relevantMs],
      );
    return rows.map((row) => ({
      target: { projectId: row.project_id, provider: row.provider, model: row.model },
      until: Number(row.until),
      trips: Number(row.trips),
    }));
  }

  /** Rows of cooldowns that ended long ago and were never probed (nothing called the target since). */
  async prune(olderThanMs: number): Promise<void> {
    await this.dataSource.query(`DELETE FROM routing_target_health WHERE cooldown_until < now() - $1 * interval '1 millisecond'`, [
      olderThanMs,
    ]);
  }
}
