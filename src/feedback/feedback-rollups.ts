import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import type { FeedbackRow } from './feedback.repository';

/** A rollup row: the sums of one prompt, environment, version and feedback name. */
export interface RollupRow {
  version: number;
  name: string;
  total: number;
  numbers: number;
  booleans: number;
  /** numeric, as text: exact sums (a replaced value is subtracted exactly). */
  value_sum: string;
  value_sum_squares: string;
  categories: Record<string, number>;
}

/** One feedback's share of a rollup, added (+1) or taken back (-1, when replaced). */
interface Change {
  sign: 1 | -1;
  row: FeedbackRow;
}

const keyOf = (row: FeedbackRow) => JSON.stringify([row.prompt_slug, row.environment, row.version, row.name]);

/**
 * The rollups per-arm results read (docs/experiments.md, "Feedback"): per prompt, environment,
 * version and name, the count of feedback, of numbers and of booleans, the sum and sum of squares
 * of those values (a boolean is 1 or 0) and counts per category. Written in the feedback's own
 * transaction: a replaced value is taken back and the new one added, so the rollup always equals
 * the rows. Feedback on a call no saved version served (a direct provider call) has no rollup.
 */
@Injectable()
export class FeedbackRollups {
  constructor(private readonly dataSource: DataSource) {}

  async apply(manager: EntityManager, projectId: string, previous: FeedbackRow | null, current: FeedbackRow): Promise<void> {
    const byKey = new Map<string, Change[]>();
    for (const change of [previous && { sign: -1 as const, row: previous }, { sign: 1 as const, row: current }]) {
      if (!change || change.row.version === null || change.row.prompt_slug === null || change.row.environment === null) continue;
      const key = keyOf(change.row);
      byKey.set(key, [...(byKey.get(key) ?? []), change]);
    }
    // In key order: two replacements moving between the same two rollups lock them in the same order.
    for (const key of [...byKey.keys()].sort()) await this.upsert(manager, projectId, byKey.get(key)!);
  }

  private async upsert(manager: EntityManager, projectId: string, changes: Change[]): Promise<void> {
    const added = changes.find((c) => c.sign === 1)?.row ?? null;
    const removed = changes.find((c) => c.sign === -1)?.row ?? null;
    const count = (kind: FeedbackRow['value_kind']) => (added?.value_kind === kind ? 1 : 0) - (removed?.value_kind === kind ? 1 : 0);
    const categories: Record<string, number> = {};
    if (added?.value_kind === 'category') categories[added.value_text!] = (categories[added.value_text!] ?? 0) + 1;
    if (removed?.value_kind === 'category') categories[removed.value_text!] = (categories[removed.value_text!] ?? 0) - 1;
    const scored = (row: FeedbackRow | null) => (row && row.value_kind !== 'category' ? row.value_number : null);
    const { prompt_slug, environment, version, name } = (added ?? removed)!;
    await manager.query(
      `INSERT INTO feedback_rollups AS r (project_id, prompt_slug, environment, version, name, total, numbers, booleans,
                                          value_sum, value_sum_squares, categories, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8,
               COALESCE($9::numeric, 0) - COALESCE($10::numeric, 0),
               COALESCE($9::numeric * $9::numeric, 0) - COALESCE($10::numeric * $10::numeric, 0),
               $11::jsonb, now())
       ON CONFLICT (project_id, prompt_slug, environment, version, name) DO UPDATE SET
         total = r.total + EXCLUDED.total,
         numbers = r.numbers + EXCLUDED.numbers,
         booleans = r.booleans + EXCLUDED.booleans,
         value_sum = r.value_sum + EXCLUDED.value_sum,
         value_sum_squares = r.value_sum_squares + EXCLUDED.value_sum_squares,
         categories = (
           SELECT COALESCE(jsonb_object_agg(key, n) FILTER (WHERE n <> 0), '{}'::jsonb)
             FROM (SELECT key, sum(value::integer) AS n
                     FROM (SELECT * FROM jsonb_each_text(r.categories) UNION ALL SELECT * FROM jsonb_each_text(EXCLUDED.categories)) c
                    GROUP BY key) s),
         updated_at = now()`,
      [
        projectId,
        prompt_slug,
        environment,
        version,
        name,
        (added ? 1 : 0) - (removed ? 1 : 0),
        count('number'),
        count('boolean'),
        scored(added),
        scored(removed),
        JSON.stringify(Object.fromEntries(Object.entries(categories).filter(([, n]) => n !== 0))),
      ],
    );
  }

  /** The rollups of some versions of one prompt in one environment (an experiment's arms), by version then name. */
  async ofVersions(projectId: string, promptSlug: string, environment: string, versions: number[]): Promise<RollupRow[]> {
    const rows: RollupRow[] = await this.dataSource.query(
      `SELECT version, name, total, numbers, booleans, value_sum::text AS value_sum, value_sum_squares::text AS value_sum_squares, categories
         FROM feedback_rollups
        WHERE project_id = $1 AND prompt_slug = $2 AND environment = $3 AND version = ANY ($4::int[]) AND total > 0
        ORDER BY version, name
        LIMIT 1000`,
      [projectId, promptSlug, environment, versions],
    );
    return rows.map((row) => ({ ...row, categories: typeof row.categories === 'string' ? JSON.parse(row.categories) : row.categories }));
  }

  /** The rollups of one prompt in one environment, newest version first, then by name. */
  async of(projectId: string, promptSlug: string, environment: string, manager?: EntityManager): Promise<RollupRow[]> {
    const rows: RollupRow[] = await (manager ?? this.dataSource.manager).query(
      `SELECT version, name, total, numbers, booleans, value_sum::text AS value_sum, value_sum_squares::text AS value_sum_squares, categories
         FROM feedback_rollups
        WHERE project_id = $1 AND prompt_slug = $2 AND environment = $3 AND total > 0
        ORDER BY version DESC, name
        LIMIT 1000`,
      [projectId, promptSlug, environment],
    );
    return rows.map((row) => ({ ...row, categories: typeof row.categories === 'string' ? JSON.parse(row.categories) : row.categories }));
  }
}
