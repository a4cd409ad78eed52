import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { rowsOf } from '../../jobs/job-queue';
import type { GraderScore, GraderSpec } from '../graders/grader.schema';
import type { StoredTarget } from './run.schema';

export type RunStatus = 'queued' | 'running' | 'completed' | 'cancelled' | 'failed';

export interface RunRow {
  id: string;
  name: string;
  status: RunStatus;
  dataset_id: string;
  dataset_name: string;
  dataset_version: number;
  target: StoredTarget;
  prompt_id: string | null;
  prompt_version_id: string | null;
  graders: GraderSpec[];
  concurrency: number;
  total_items: number;
  completed_items: number;
  errored_items: number;
  passed_items: number;
  prompt_tokens: string | number;
  completion_tokens: string | number;
  cost_usd: string;
  latency_ms_sum: string | number;
  error: string | null;
  created_by: { keyId: string | null; keyName: string | null };
  metadata: Record<string, string | number>;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface RunItemRow extends ItemInput {
  item_id: string;
  status: 'ok' | 'error';
  output: { text: string; toolCalls: { name: string; arguments: string }[]; finishReason: string | null } | null;
  scores: GraderScore[];
  passed: boolean;
  score: number;
  error: string | null;
  log_id: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  cost_usd: string | null;
  latency_ms: number;
  created_at: Date;
}

/** An item's input as a joined dataset revision holds it. */
export interface ItemInput {
  input_variables?: Record<string, string> | null;
  input_messages?: unknown[] | null;
  input_expected?: unknown;
  has_input?: boolean;
}

export interface GraderTotalRow {
  grader: string;
  graded: number;
  passed: number;
  score_sum: number;
}

const RUN_COLUMNS = `id, name, status, dataset_id, dataset_name, dataset_version, target, prompt_id, prompt_version_id, graders, concurrency, total_items,
  completed_items, errored_items, passed_items, prompt_tokens, completion_tokens, cost_usd, latency_ms_sum, error, created_by, metadata,
  created_at, started_at, finished_at`;
const ITEM_COLUMNS =
  'item_id, status, output, scores, passed, score, error, log_id, prompt_tokens, completion_tokens, cost_usd, latency_ms, created_at';

/** An item's input, from the dataset version the run used ($7: dataset id, $8: version), joined by item id on the items' key. */
const INPUT_COLUMNS =
  'd.variables AS input_variables, d.messages AS input_messages, d.expected AS input_expected, d.id IS NOT NULL AS has_input';
const INPUT_JOIN = `LEFT JOIN dataset_items d ON d.project_id = r.project_id AND d.dataset_id = $7 AND d.id = r.item_id
   AND d.since_version <= $8 AND (d.until_version IS NULL OR d.until_version > $8)`;

/** Experiment runs, their graded items and per-grader totals; every query scoped by project. */
@Injectable()
export class RunsRepository {
  constructor(private readonly dataSource: DataSource) {}

  private q(manager?: EntityManager): EntityManager {
    return manager ?? this.dataSource.manager;
  }

  async insert(
    manager: EntityManager,
    projectId: string,
    run: Omit<
      RunRow,
      | 'completed_items'
      | 'errored_items'
      | 'passed_items'
      | 'prompt_tokens'
      | 'completion_tokens'
      | 'cost_usd'
      | 'latency_ms_sum'
      | 'error'
      | 'started_at'
      | 'finished_at'
    >,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO eval_runs (project_id, id, name, status, dataset_id, dataset_version, target, prompt_id, prompt_version_id, graders, concurrency,
         total_items, created_by, metadata, created_at, dataset_name)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
      [
        projectId,
        run.id,
        run.name,
        run.status,
        run.dataset_id,
        run.dataset_version,
        JSON.stringify(run.target),
        run.prompt_id,
        run.prompt_version_id,
        JSON.stringify(run.graders),
        run.concurrency,
        run.total_items,
        JSON.stringify(run.created_by),
        JSON.stringify(run.metadata),
        run.created_at,
        run.dataset_name,
      ],
    );
  }

  async find(projectId: string, id: string, manager?: EntityManager, lock = false): Promise<RunRow | null> {
    const rows: RunRow[] = await this.q(manager).query(
      `SELECT ${RUN_COLUMNS} FROM eval_runs WHERE project_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
      [projectId, id],
    );
    return rows[0] ?? null;
  }

  /** Newest first (ids are UUIDv7), keyset by id; optionally one prompt's or one dataset's. */
  list(projectId: string, filter: { promptId?: string; datasetId?: string }, before: string | null, limit: number): Promise<RunRow[]> {
    return this.q().query(
      `SELECT ${RUN_COLUMNS} FROM eval_runs WHERE project_id = $1 AND ($2::uuid IS NULL OR id < $2)
          AND ($3::uuid IS NULL OR prompt_id = $3) AND ($4::uuid IS NULL OR dataset_id = $4)
        ORDER BY id DESC LIMIT $5`,
      [projectId, before, filter.promptId ?? null, filter.datasetId ?? null, limit],
    );
  }

  async setStatus(manager: EntityManager, projectId: string, id: string, status: RunStatus, error: string | null = null): Promise<void> {
    await manager.query(
      `UPDATE eval_runs SET status = $3, error = coalesce($4, error),
          started_at = CASE WHEN $3 = 'running' THEN coalesce(started_at, now()) ELSE started_at END,
          finished_at = CASE WHEN $3 IN ('completed', 'cancelled', 'failed') THEN now() ELSE finished_at END
        WHERE project_id = $1 AND id = $2`,
      [projectId, id, status, error],
    );
  }

  /**
   * Stores graded items not stored yet (ON CONFLICT DO NOTHING: an item a previous holder of the run
   * stored is kept as it was) and adds exactly the stored ones to the run's totals, in `manager`'s
   * transaction: the totals always equal the item rows.
   */
  async storeItems(manager: EntityManager, projectId: string, runId: string, items: RunItemRow[]): Promise<number> {
    if (items.length === 0) return 0;
    // eval_run_items has no foreign key to projects: hold the project row (as a foreign key would) so
    // a project deletion either waits for these rows and deletes them, or has committed and none are
    // written (docs/security.md, "Deleting a project").
    const live = rowsOf(await manager.query('SELECT 1 FROM projects WHERE id = $1 FOR KEY SHARE', [projectId]));
    if (live.length === 0) return 0;
    const params: unknown[] = [projectId, runId];
    const values = items.map((item) => {
      params.push(
        item.item_id,
        item.status,
        item.output === null ? null : JSON.stringify(item.output),
        JSON.stringify(item.scores),
        item.passed,
        item.score,
        item.error,
        item.log_id,
        item.prompt_tokens,
        item.completion_tokens,
        item.cost_usd,
        item.latency_ms,
      );
      const n = params.length;
      return `($1, $2, ${Array.from({ length: 12 }, (_, i) => `$${n - 11 + i}`).join(', ')}, now())`;
    });
    const stored = rowsOf<{ item_id: string }>(
      await manager.query(
        `INSERT INTO eval_run_items (project_id, run_id, item_id, status, output, scores, passed, score, error, log_id, prompt_tokens, completion_tokens, cost_usd, latency_ms, created_at)
         VALUES ${values.join(', ')} ON CONFLICT (project_id, run_id, item_id) DO NOTHING RETURNING item_id`,
        params,
      ),
    );
    const ids = new Set(stored.map((row) => row.item_id));
    const kept = items.filter((item) => ids.has(item.item_id));
    if (kept.length === 0) return 0;
    const sum = (pick: (item: RunItemRow) => number) => kept.reduce((total, item) => total + pick(item), 0);
    await manager.query(
      `UPDATE eval_runs SET completed_items = completed_items + $3, errored_items = errored_items + $4, passed_items = passed_items + $5,
          prompt_tokens = prompt_tokens + $6, completion_tokens = completion_tokens + $7, cost_usd = cost_usd + $8, latency_ms_sum = latency_ms_sum + $9
        WHERE project_id = $1 AND id = $2`,
      [
        projectId,
        runId,
        kept.length,
        sum((item) => (item.status === 'error' ? 1 : 0)),
        sum((item) => (item.passed ? 1 : 0)),
        sum((item) => item.prompt_tokens ?? 0),
        sum((item) => item.completion_tokens ?? 0),
        kept.reduce((total, item) => total + Number(item.cost_usd ?? 0), 0).toFixed(10),
        sum((item) => item.latency_ms),
      ],
    );
    const totals = new Map<string, GraderTotalRow>();
    for (const item of kept)
      for (const score of item.scores) {
        const total = totals.get(score.grader) ?? { grader: score.grader, graded: 0, passed: 0, score_sum: 0 };
        total.graded++;
        total.passed += score.passed ? 1 : 0;
        total.score_sum += score.score;
        totals.set(score.grader, total);
      }
    // In grader-name order: two flushes of one run lock the same rows in the same order.
    for (const total of [...totals.values()].sort((a, b) => a.grader.localeCompare(b.grader)))
      await manager.query(
        `INSERT INTO eval_run_grader_totals AS t (project_id, run_id, grader, graded, passed, score_sum) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (project_id, run_id, grader) DO UPDATE SET graded = t.graded + EXCLUDED.graded, passed = t.passed + EXCLUDED.passed,
           score_sum = t.score_sum + EXCLUDED.score_sum`,
        [projectId, runId, total.grader, total.graded, total.passed, total.score_sum],
      );
    return kept.length;
  }

  /** The grader totals of several runs (a page of the list) in one query. */
  async graderTotalsOf(projectId: string, runIds: string[]): Promise<Map<string, GraderTotalRow[]>> {
    const byRun = new Map<string, GraderTotalRow[]>(runIds.map((id) => [id, []]));
    if (runIds.length === 0) return byRun;
    const rows: (GraderTotalRow & { run_id: string })[] = await this.q().query(
      'SELECT run_id, grader, graded, passed, score_sum FROM eval_run_grader_totals WHERE project_id = $1 AND run_id = ANY($2::uuid[]) ORDER BY grader',
      [projectId, `{${runIds.join(',')}}`],
    );
    for (const { run_id, ...total } of rows) byRun.get(run_id)?.push(total);
    return byRun;
  }

  graderTotals(projectId: string, runId: string): Promise<GraderTotalRow[]> {
    return this.q().query(
      'SELECT grader, graded, passed, score_sum FROM eval_run_grader_totals WHERE project_id = $1 AND run_id = $2 ORDER BY grader',
      [projectId, runId],
    );
  }

  /**
   * A run's items by item id, keyset; `passed` filters. Each with its input as the dataset version
   * the run used holds it (null when the dataset was deleted since).
   */
  items(
    projectId: string,
    run: { id: string; datasetId: string; datasetVersion: number },
    filter: { passed?: boolean; status?: string },
    after: string | null,
    limit: number,
  ): Promise<RunItemRow[]> {
    return this.q().query(
      `SELECT ${ITEM_COLUMNS.split(', ')
        .map((column) => `r.${column}`)
        .join(', ')}, ${INPUT_COLUMNS}
         FROM eval_run_items r ${INPUT_JOIN}
        WHERE r.project_id = $1 AND r.run_id = $2 AND ($3::uuid IS NULL OR r.item_id > $3)
          AND ($4::boolean IS NULL OR r.passed = $4) AND ($5::text IS NULL OR r.status = $5)
        ORDER BY r.item_id LIMIT $6`,
      [projectId, run.id, after, filter.passed ?? null, filter.status ?? null, limit, run.datasetId, run.datasetVersion],
    );
  }

  /** Item by item, two runs side by side: how many improved, regressed, stayed; only the items of both runs count. */
  async compareCounts(
    projectId: string,
    candidate: string,
    base: string,
  ): Promise<{ improved: number; regressed: number; unchanged: number; only_base: number; only_candidate: number }> {
    const rows: Record<string, string>[] = await this.q().query(
      `SELECT count(*) FILTER (WHERE c.score > b.score + 1e-9) AS improved,
              count(*) FILTER (WHERE c.score < b.score - 1e-9) AS regressed,
              count(*) FILTER (WHERE abs(c.score - b.score) <= 1e-9) AS unchanged,
              (SELECT count(*) FROM eval_run_items WHERE project_id = $1 AND run_id = $3) - count(*) AS only_base,
              (SELECT count(*) FROM eval_run_items WHERE project_id = $1 AND run_id = $2) - count(*) AS only_candidate
         FROM eval_run_items c JOIN eval_run_items b ON b.project_id = c.project_id AND b.run_id = $3 AND b.item_id = c.item_id
        WHERE c.project_id = $1 AND c.run_id = $2`,
      [projectId, candidate, base],
    );
    const row = rows[0];
    return {
      improved: Number(row.improved),
      regressed: Number(row.regressed),
      unchanged: Number(row.unchanged),
      only_base: Number(row.only_base),
      only_candidate: Number(row.only_candidate),
    };
  }

  /** The items of one outcome, by item id (keyset), each with both runs' rows. */
  compareItems(
    projectId: string,
    candidate: string,
    base: string,
    outcome: 'improved' | 'regressed' | 'unchanged',
    after: string | null,
    limit: number,
    dataset: { id: string; version: number },
  ): Promise<({ item_id: string; candidate: RunItemRow; base: RunItemRow } & ItemInput)[]> {
    const condition =
      outcome === 'improved'
        ? 'c.score > b.score + 1e-9'
        : outcome === 'regressed'
          ? 'c.score < b.score - 1e-9'
          : 'abs(c.score - b.score) <= 1e-9';
    return this.q().query(
      `SELECT c.item_id, to_jsonb(c) AS candidate, to_jsonb(b) AS base, ${INPUT_COLUMNS}
         FROM eval_run_items c JOIN eval_run_items b ON b.project_id = c.project_id AND b.run_id = $3 AND b.item_id = c.item_id
         ${INPUT_JOIN.replace('r.project_id', 'c.project_id').replace('r.item_id', 'c.item_id').replace('$7', '$6').replace(/\$8/g, '$7')}
        WHERE c.project_id = $1 AND c.run_id = $2 AND ${condition} AND ($4::uuid IS NULL OR c.item_id > $4)
        ORDER BY c.item_id LIMIT $5`,
      [projectId, candidate, base, after, limit, dataset.id, dataset.version],
    );
  }

  /** The newest completed run of `promptVersionId` over `datasetId`: what a deploy gate looks at. */
  async latestCompleted(manager: EntityManager, projectId: string, promptVersionId: string, datasetId: string): Promise<RunRow | null> {
    const rows: RunRow[] = await manager.query(
      `SELECT ${RUN_COLUMNS} FROM eval_runs WHERE project_id = $1 AND prompt_version_id = $2 AND dataset_id = $3 AND status = 'completed'
        ORDER BY id DESC LIMIT 1`,
      [projectId, promptVersionId, datasetId],
    );
    return rows[0] ?? null;
  }

  graderTotalsIn(manager: EntityManager, projectId: string, runId: string): Promise<GraderTotalRow[]> {
    return manager.query(
      'SELECT grader, graded, passed, score_sum FROM eval_run_grader_totals WHERE project_id = $1 AND run_id = $2 ORDER BY grader',
      [projectId, runId],
    );
  }
}
