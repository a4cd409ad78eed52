import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import type { AuditChange } from '../../audit/audit-log';
import { ApiException, invalidBody, notFound } from '../../common/errors';
import { isSlugLike } from '../../common/validation/slug';

/** An environment's deploy gate (docs/evals.md, "The deploy gate"). */
export interface GateSettings {
  dataset: string;
  /** Grader name → the mean score a run must reach. */
  minScores: Record<string, number>;
}

/** A deploy the gate refused: 409 with what is missing; its audit event is recorded after the refused transaction rolled back. */
export class DeployGateRefused extends ApiException {
  constructor(
    message: string,
    details: string[],
    readonly audit: AuditChange,
  ) {
    super(409, { error: { message, details } });
  }
}

/** A gate's dataset is kept while the gate names it (DatasetsService refuses to delete it); this names one deleted before that rule. */
const DELETED_DATASET = '(deleted dataset)';

interface GateRow {
  dataset_id: string;
  dataset_name: string | null;
  min_scores: Record<string, number>;
}

/**
 * Deploy gates, stored per environment and checked where deployments are written
 * (DeploymentsService.deployLocked), so the API, `parley apply` and the console meet the same
 * check. A gate reads the experiment runs' tables by SQL (src/evals writes them): the registry
 * stays below the evaluations in the layers.
 */
@Injectable()
export class EnvironmentGates {
  constructor(private readonly dataSource: DataSource) {}

  async get(projectId: string, environmentId: string, manager?: EntityManager): Promise<GateSettings | null> {
    const row = await this.row(projectId, environmentId, manager);
    return row ? { dataset: row.dataset_name ?? DELETED_DATASET, minScores: row.min_scores } : null;
  }

  async put(manager: EntityManager, projectId: string, environmentId: string, settings: GateSettings): Promise<void> {
    const datasets: { id: string }[] = isSlugLike(settings.dataset)
      ? await manager.query('SELECT id FROM datasets WHERE project_id = $1 AND name = $2', [projectId, settings.dataset])
      : [];
    if (!datasets.length) throw invalidBody([`dataset: no dataset named "${settings.dataset}" in this project`]);
    await manager.query(
      `INSERT INTO environment_gates (project_id, environment_id, dataset_id, min_scores, updated_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (project_id, environment_id) DO UPDATE SET dataset_id = EXCLUDED.dataset_id, min_scores = EXCLUDED.min_scores, updated_at = now()`,
      [projectId, environmentId, datasets[0].id, JSON.stringify(settings.minScores)],
    );
  }

  async remove(manager: EntityManager, projectId: string, environmentId: string): Promise<boolean> {
    const result = await manager.query('DELETE FROM environment_gates WHERE project_id = $1 AND environment_id = $2 RETURNING 1', [
      projectId,
      environmentId,
    ]);
    const rows = Array.isArray(result[0]) ? result[0] : result;
    if (!rows.length) throw notFound('This environment has no deploy gate');
    return true;
  }

  /**
   * Checks a deploy of `version` into the environment, in the deploy's transaction. Answers the
   * audit change of a passed check (null when the environment has no gate); throws
   * DeployGateRefused naming what is missing. A version this environment ran before (a rollback)
   * passes: it already served there.
   */
  async check(
    manager: EntityManager,
    deploy: {
      projectId: string;
      promptId: string;
      promptSlug: string;
      environmentId: string;
      environment: string;
      versionId: string;
      version: number;
    },
  ): Promise<AuditChange | null> {
    const gate = await this.row(deploy.projectId, deploy.environmentId, manager);
    if (!gate) return null;
    const datasetName = gate.dataset_name ?? DELETED_DATASET;
    const change = (outcome: 'passed' | 'refused', details: Record<string, unknown>): AuditChange => ({
      projectId: deploy.projectId,
      action: 'deployment.gate_checked',
      resourceType: 'deployment',
      resourceId: `${deploy.promptSlug}@${deploy.environment}`,
      after: {
        outcome,
        prompt: deploy.promptSlug,
        environment: deploy.environment,
        version: deploy.version,
        dataset: gate.dataset_name,
        ...details,
      },
    });
    const before: unknown[] = await manager.query(
      'SELECT 1 FROM deployments WHERE project_id = $1 AND prompt_id = $2 AND environment_id = $3 AND version_id = $4 LIMIT 1',
      [deploy.projectId, deploy.promptId, deploy.environmentId, deploy.versionId],
    );
    if (before.length) return change('passed', { reason: 'deployed in this environment before' });
    const runs: { id: string; name: string }[] = await manager.query(
      `SELECT id, name FROM eval_runs WHERE project_id = $1 AND prompt_version_id = $2 AND dataset_id = $3 AND status = 'completed' ORDER BY id DESC LIMIT 1`,
      [deploy.projectId, deploy.versionId, gate.dataset_id],
    );
    const what = `${deploy.promptSlug} v${deploy.version}`;
    const message = `The deploy gate of "${deploy.environment}" refused ${what}`;
    if (!runs.length) {
      const missing = `no completed experiment run of ${what} on dataset "${datasetName}": run one (POST /v2/evals/runs or parley eval run)`;
      throw new DeployGateRefused(message, [missing], change('refused', { missing: [missing] }));
    }
    const totals: { grader: string; graded: number; score_sum: number }[] = await manager.query(
      'SELECT grader, graded, score_sum FROM eval_run_grader_totals WHERE project_id = $1 AND run_id = $2',
      [deploy.projectId, runs[0].id],
    );
    const scores: Record<string, number | null> = {};
    const missing: string[] = [];
    for (const [grader, min] of Object.entries(gate.min_scores)) {
      const total = totals.find((t) => t.grader === grader);
      const mean = total && Number(total.graded) > 0 ? Math.round((Number(total.score_sum) / Number(total.graded)) * 1e6) / 1e6 : null;
      scores[grader] = mean;
      if (mean === null) missing.push(`grader "${grader}": not in run ${runs[0].id} ("${runs[0].name}")`);
      else if (mean < min) missing.push(`grader "${grader}": mean score ${mean} in run ${runs[0].id} is below ${min}`);
    }
    if (missing.length) throw new DeployGateRefused(message, missing, change('refused', { run: runs[0].id, scores, missing }));
    return change('passed', { run: runs[0].id, scores });
  }

  private async row(projectId: string, environmentId: string, manager?: EntityManager): Promise<GateRow | null> {
    const rows: GateRow[] = await (manager ?? this.dataSource.manager).query(
      `SELECT g.dataset_id, d.name AS dataset_name, g.min_scores FROM environment_gates g
         LEFT JOIN datasets d ON d.project_id = g.project_id AND d.id = g.dataset_id
        WHERE g.project_id = $1 AND g.environment_id = $2`,
      [projectId, environmentId],
    );
    return rows[0] ?? null;
  }
}
