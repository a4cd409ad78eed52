import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import type { SplitGuard } from '../../registry/deployments/guards';
import type { SplitArm } from '../../registry/deployments/split';
import type { GuardBaseline } from './guard-evaluation';

/** A current split deployment with guards, as the checker reads it. */
export interface GuardedDeployment {
  projectId: string;
  id: string;
  prompt: string;
  environment: string;
  deploymentVersion: number;
  deployedAt: Date;
  split: SplitArm[];
  guards: SplitGuard[];
  baseline: GuardBaseline | null;
}

interface Row {
  project_id: string;
  id: string;
  prompt: string;
  environment: string;
  deployment_version: number;
  deployed_at: Date | string;
  split: SplitArm[] | string;
  guards: SplitGuard[] | string;
  guard_baseline: GuardBaseline | string | null;
}

const json = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);
/** A page's position: the (project id, id) of the last deployment of the page before. */
export type GuardedKey = [projectId: string, id: string];
const FIRST_KEY: GuardedKey = ['00000000-0000-0000-0000-000000000000', '00000000-0000-0000-0000-000000000000'];

/**
 * The deployments the guard checker reads and the baseline it writes. Like the webhook outbox's
 * claim, the read spans projects (it is the server's own work); each write names its project.
 */
@Injectable()
export class GuardedDeployments {
  constructor(private readonly dataSource: DataSource) {}

  /** Current deployments with guards after `after` (project id, id), in that order: one page, from the partial index deployments_guarded_idx. */
  async page(after: GuardedKey = FIRST_KEY, limit = 100): Promise<GuardedDeployment[]> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT d.project_id, d.id, p.slug AS prompt, e.slug AS environment, d.deployment_version, d.deployed_at,
              d.split, d.guards, d.guard_baseline
         FROM deployments d
         JOIN prompts p ON p.project_id = d.project_id AND p.id = d.prompt_id
         JOIN environments e ON e.project_id = d.project_id AND e.id = d.environment_id
        WHERE d.replaced_at IS NULL AND d.guards IS NOT NULL AND d.split IS NOT NULL AND (d.project_id, d.id) > ($1::uuid, $2::uuid)
        ORDER BY d.project_id, d.id
        LIMIT $3`,
      [after[0], after[1], limit],
    );
    return rows.map((row) => ({
      projectId: row.project_id,
      id: row.id,
      prompt: row.prompt,
      environment: row.environment,
      deploymentVersion: Number(row.deployment_version),
      deployedAt: new Date(row.deployed_at),
      split: json(row.split),
      guards: json(row.guards),
      baseline: row.guard_baseline === null ? null : json(row.guard_baseline),
    }));
  }

  /** Sets a deployment's baseline unless one is set (another instance's checker may have been first). */
  async setBaseline(
    projectId: string,
    id: string,
    baseline: GuardBaseline,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    await manager.query('UPDATE deployments SET guard_baseline = $3::jsonb WHERE project_id = $1 AND id = $2 AND guard_baseline IS NULL', [
      projectId,
      id,
      JSON.stringify(baseline),
    ]);
  }
}
