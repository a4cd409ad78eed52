import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import type { RunItemRow, RunStatus } from '../runs/runs.repository';
import type { Criterion } from './criteria';

export interface EvalRow {
  id: string;
  name: string;
  data_source_config: { type: 'custom'; item_schema: Record<string, unknown>; include_sample_schema: boolean };
  testing_criteria: Criterion[];
  metadata: Record<string, string> | null;
  created_at: Date;
  updated_at: Date;
}

/** An OpenAI run: its experiment run (`run_id`), the dataset of its rows, and what it was created with. */
export interface EvalRunRow {
  id: string;
  eval_id: string;
  run_id: string;
  dataset_id: string;
  data_source: Record<string, unknown>;
  model: string | null;
  metadata: Record<string, string> | null;
  created_at: Date;
}

/** A graded item of the experiment run, with the dataset item it was made of (its row of the data source, its index). */
export type OutputItemRow = Pick<
  RunItemRow,
  'item_id' | 'status' | 'output' | 'scores' | 'passed' | 'error' | 'log_id' | 'prompt_tokens' | 'completion_tokens' | 'created_at'
> & { expected: unknown; metadata: Record<string, string | number> | null };

const EVAL_COLUMNS = 'id, name, data_source_config, testing_criteria, metadata, created_at, updated_at';
const RUN_COLUMNS = 'id, eval_id, run_id, dataset_id, data_source, model, metadata, created_at';

/**
 * The OpenAI Evals API's own rows (docs/evals.md, "OpenAI's Evals API"), every query scoped by
 * project; output items are read from the experiment run's items joined with the dataset item of
 * each (its first revision: the row as the run was given it).
 */
@Injectable()
export class OpenAIEvalsRepository {
  constructor(private readonly dataSource: DataSource) {}

  private q(manager?: EntityManager): EntityManager {
    return manager ?? this.dataSource.manager;
  }

  async insertEval(manager: EntityManager, projectId: string, row: EvalRow): Promise<void> {
    await manager.query(
      `INSERT INTO openai_evals (project_id, id, name, data_source_config, testing_criteria, metadata, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        projectId,
        row.id,
        row.name,
        JSON.stringify(row.data_source_config),
        JSON.stringify(row.testing_criteria),
        row.metadata === null ? null : JSON.stringify(row.metadata),
        row.created_at,
        row.updated_at,
      ],
    );
  }

  async findEval(projectId: string, id: string, manager?: EntityManager, lock = false): Promise<EvalRow | null> {
    const rows: EvalRow[] = await this.q(manager).query(
      `SELECT ${EVAL_COLUMNS} FROM openai_evals WHERE project_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
      [projectId, id],
    );
    return rows[0] ?? null;
  }

  /** By creation (the id: time-ordered) or by last update, keyset after `after`'s position; an `after` naming no eval gives nothing. */
  listEvals(
    projectId: string,
    query: { after: string | null; order: 'asc' | 'desc'; orderBy: 'created_at' | 'updated_at' },
    limit: number,
  ): Promise<EvalRow[]> {
    const [cmp, dir] = query.order === 'asc' ? ['>', 'ASC'] : ['<', 'DESC'];
    const keyset =
      query.orderBy === 'created_at'
        ? `($2::text IS NULL OR id ${cmp} $2)`
        : `($2::text IS NULL OR (updated_at, id) ${cmp} (SELECT updated_at, id FROM openai_evals WHERE project_id = $1 AND id = $2))`;
    const order = query.orderBy === 'created_at' ? `id ${dir}` : `updated_at ${dir}, id ${dir}`;
    return this.q().query(`SELECT ${EVAL_COLUMNS} FROM openai_evals WHERE project_id = $1 AND ${keyset} ORDER BY ${order} LIMIT $3`, [
      projectId,
      query.after,
      limit,
    ]);
  }

  async updateEval(
    manager: EntityManager,
    projectId: string,
    id: string,
    change: { name?: string; metadata?: Record<string, string> | null },
  ): Promise<void> {
    await manager.query(
      `UPDATE openai_evals SET name = coalesce($3, name), metadata = CASE WHEN $4 THEN $5::jsonb ELSE metadata END, updated_at = now()
        WHERE project_id = $1 AND id = $2`,
      [projectId, id, change.name ?? null, change.metadata !== undefined, change.metadata == null ? null : JSON.stringify(change.metadata)],
    );
  }

  async deleteEval(manager: EntityManager, projectId: string, id: string): Promise<void> {
    await manager.query('DELETE FROM openai_eval_runs WHERE project_id = $1 AND eval_id = $2', [projectId, id]);
    await manager.query('DELETE FROM openai_evals WHERE project_id = $1 AND id = $2', [projectId, id]);
  }

  async insertRun(manager: EntityManager, projectId: string, row: EvalRunRow): Promise<void> {
    await manager.query(
      `INSERT INTO openai_eval_runs (project_id, id, eval_id, run_id, dataset_id, data_source, model, metadata, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        projectId,
        row.id,
        row.eval_id,
        row.run_id,
        row.dataset_id,
        JSON.stringify(row.data_source),
        row.model,
        row.metadata === null ? null : JSON.stringify(row.metadata),
        row.created_at,
      ],
    );
  }

  async findRun(projectId: string, evalId: string, id: string): Promise<EvalRunRow | null> {
    const rows: EvalRunRow[] = await this.q().query(
      `SELECT ${RUN_COLUMNS} FROM openai_eval_runs WHERE project_id = $1 AND id = $2 AND eval_id = $3`,
      [projectId, id, evalId],
    );
    return rows[0] ?? null;
  }

  /** An eval's runs by id (time-ordered), keyset after `after`; `status` is the experiment run's. */
  listRuns(
    projectId: string,
    evalId: string,
    query: { after: string | null; order: 'asc' | 'desc'; status: RunStatus | null },
    limit: number,
  ): Promise<EvalRunRow[]> {
    const [cmp, dir] = query.order === 'asc' ? ['>', 'ASC'] : ['<', 'DESC'];
    return this.q().query(
      `SELECT ${RUN_COLUMNS.split(', ')
        .map((column) => `l.${column}`)
        .join(', ')}
         FROM openai_eval_runs l JOIN eval_runs r ON r.project_id = l.project_id AND r.id = l.run_id
        WHERE l.project_id = $1 AND l.eval_id = $2 AND ($3::text IS NULL OR l.id ${cmp} $3) AND ($4::text IS NULL OR r.status = $4)
        ORDER BY l.id ${dir} LIMIT $5`,
      [projectId, evalId, query.after, query.status, limit],
    );
  }

  allRuns(projectId: string, evalId: string, manager?: EntityManager): Promise<EvalRunRow[]> {
    return this.q(manager).query(`SELECT ${RUN_COLUMNS} FROM openai_eval_runs WHERE project_id = $1 AND eval_id = $2 ORDER BY id`, [
      projectId,
      evalId,
    ]);
  }

  async deleteRun(manager: EntityManager, projectId: string, id: string): Promise<void> {
    await manager.query('DELETE FROM openai_eval_runs WHERE project_id = $1 AND id = $2', [projectId, id]);
  }

  /** A run's output items by item id (the rows' order), keyset; `pass`: passed every criterion, `fail`: graded and not passed. */
  outputItems(
    projectId: string,
    run: EvalRunRow,
    query: { after: string | null; order: 'asc' | 'desc'; status: 'pass' | 'fail' | null; itemId?: string },
    limit: number,
  ): Promise<OutputItemRow[]> {
    const [cmp, dir] = query.order === 'asc' ? ['>', 'ASC'] : ['<', 'DESC'];
    return this.q().query(
      `SELECT r.item_id, r.status, r.output, r.scores, r.passed, r.error, r.log_id, r.prompt_tokens, r.completion_tokens, r.created_at,
              d.expected, d.metadata
         FROM eval_run_items r
         LEFT JOIN dataset_items d ON d.project_id = r.project_id AND d.dataset_id = $3 AND d.id = r.item_id AND d.since_version = 1
        WHERE r.project_id = $1 AND r.run_id = $2 AND ($4::uuid IS NULL OR r.item_id ${cmp} $4) AND ($5::uuid IS NULL OR r.item_id = $5)
          AND ($6::text IS NULL OR ($6 = 'pass' AND r.passed) OR ($6 = 'fail' AND NOT r.passed AND r.status = 'ok'))
        ORDER BY r.item_id ${dir} LIMIT $7`,
      [projectId, run.run_id, run.dataset_id, query.after, query.itemId ?? null, query.status, limit],
    );
  }
}
