import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';

import type { PromptKind } from '../resolved-deployment';
import { DeploymentEntity } from './deployment.entity';
import type { SplitGuard } from './guards';
import type { SplitArm, SplitRule, StickyBy } from './split';

/** A deployment with the slugs and version number it points at, as listings show it. */
export interface DeploymentRow {
  id: string;
  prompt_id: string;
  slug: string;
  kind: PromptKind;
  environment: string;
  version: number;
  version_id: string;
  deployment_version: number;
  deployed_at: Date | string;
  replaced_at: Date | string | null;
  split: SplitArm[] | null;
  sticky_by: StickyBy | null;
  split_rules: SplitRule[] | null;
  guards: SplitGuard[] | null;
}

/** What resolveForInvoke reads in one query: prompt, environment, current deployment and the version to run. */
export interface ResolutionRow {
  prompt_id: string;
  slug: string;
  kind: PromptKind;
  /** The prompt is archived: nothing of it runs (docs/registry.md, "Archiving"). */
  archived: boolean;
  deployment_id: string | null;
  deployment_version: number | null;
  version_id: string | null;
  /** The deployment's split; null on a plain deployment, and when a version is pinned. */
  split: SplitArm[] | null;
  sticky_by: StickyBy | null;
  split_rules: SplitRule[] | null;
}

/** The current deployment of one prompt in one environment, with the 404s told apart (a null id: none there). */
export interface LiveRow {
  prompt_id: string;
  environment_id: string | null;
  deployment_id: string | null;
  deployment_version: number | null;
  deployed_at: Date | string | null;
  version: number | null;
  split: SplitArm[] | string | null;
}

const ROW_SELECT = `
  SELECT d.id, d.prompt_id, p.slug, p.kind, e.slug AS environment, v.version, d.version_id,
         d.deployment_version, d.deployed_at, d.replaced_at, d.split, d.sticky_by, d.split_rules, d.guards
    FROM deployments d
    JOIN prompts p ON p.project_id = d.project_id AND p.id = d.prompt_id
    JOIN environments e ON e.project_id = d.project_id AND e.id = d.environment_id
    JOIN prompt_versions v ON v.project_id = d.project_id AND v.id = d.version_id`;

/** Deployment queries, each scoped by project_id. */
@Injectable()
export class DeploymentsRepository {
  constructor(@InjectRepository(DeploymentEntity) private readonly deployments: Repository<DeploymentEntity>) {}

  findCurrent(manager: EntityManager, projectId: string, promptId: string, environmentId: string): Promise<DeploymentEntity | null> {
    return manager.getRepository(DeploymentEntity).findOne({ where: { projectId, promptId, environmentId, replacedAt: IsNull() } });
  }

  async lastDeploymentVersion(manager: EntityManager, projectId: string, promptId: string, environmentId: string): Promise<number> {
    const rows: { last: number | null }[] = await manager.query(
      'SELECT MAX(deployment_version) AS last FROM deployments WHERE project_id = $1 AND prompt_id = $2 AND environment_id = $3',
      [projectId, promptId, environmentId],
    );
    return Number(rows[0]?.last ?? 0);
  }

  async markReplaced(manager: EntityManager, projectId: string, id: string, at: Date): Promise<void> {
    await manager.update(DeploymentEntity, { projectId, id }, { replacedAt: at });
  }

  insert(manager: EntityManager, deployment: DeploymentEntity): Promise<DeploymentEntity> {
    return manager.getRepository(DeploymentEntity).save(deployment);
  }

  /** Current deployments of a project (of some of its prompts, with `promptIds`), by slug then environment. */
  listCurrent(
    projectId: string,
    filter: { slug?: string; environment?: string; promptIds?: string[] } = {},
    manager?: EntityManager,
  ): Promise<DeploymentRow[]> {
    const params: unknown[] = [projectId];
    let where = 'd.project_id = $1 AND d.replaced_at IS NULL';
    if (filter.slug !== undefined) where += ` AND p.slug = $${params.push(filter.slug)}`;
    if (filter.environment !== undefined) where += ` AND e.slug = $${params.push(filter.environment)}`;
    if (filter.promptIds !== undefined)
      where += ` AND d.prompt_id IN (${filter.promptIds.map((id) => `$${params.push(id)}`).join(', ') || 'NULL'})`;
    return (manager ?? this.deployments.manager).query(`${ROW_SELECT} WHERE ${where} ORDER BY p.slug, e.slug`, params);
  }

  /** Every deployment of one prompt, replaced ones included, newest first. */
  history(projectId: string, promptId: string, environment?: string): Promise<DeploymentRow[]> {
    const params: unknown[] = [projectId, promptId];
    let where = 'd.project_id = $1 AND d.prompt_id = $2';
    if (environment !== undefined) where += ` AND e.slug = $${params.push(environment)}`;
    return this.deployments.manager.query(`${ROW_SELECT} WHERE ${where} ORDER BY d.deployed_at DESC, d.id DESC`, params);
  }

  /**
   * Prompt + environment + current deployment + the version to run: the deployed one, or version
   * `pinned` when given. No row: no such prompt or environment. version_id null: nothing to run.
   */
  async findResolution(projectId: string, slug: string, environment: string | null, pinned?: number): Promise<ResolutionRow | null> {
    if (environment === null) {
      // A version outside any environment (an experiment's): no deployment to name.
      const rows: ResolutionRow[] = await this.deployments.manager.query(
        `SELECT p.id AS prompt_id, p.slug, p.kind, p.archived_at IS NOT NULL AS archived, NULL::uuid AS deployment_id, NULL::integer AS deployment_version, v.id AS version_id,
                NULL::jsonb AS split, NULL AS sticky_by, NULL::jsonb AS split_rules
           FROM prompts p JOIN prompt_versions v ON v.project_id = p.project_id AND v.prompt_id = p.id AND v.version = $3
          WHERE p.project_id = $1 AND p.slug = $2`,
        [projectId, slug, pinned],
      );
      return rows[0] ?? null;
    }
    const rows: ResolutionRow[] = await this.deployments.manager.query(
      `SELECT p.id AS prompt_id, p.slug, p.kind, p.archived_at IS NOT NULL AS archived, d.id AS deployment_id, d.deployment_version,
              ${pinned === undefined ? 'd.version_id, d.split, d.sticky_by, d.split_rules' : '(SELECT v.id FROM prompt_versions v WHERE v.project_id = p.project_id AND v.prompt_id = p.id AND v.version = $4) AS version_id, NULL::jsonb AS split, NULL AS sticky_by, NULL::jsonb AS split_rules'}
         FROM prompts p
         JOIN environments e ON e.project_id = p.project_id AND e.slug = $3
         LEFT JOIN deployments d ON d.project_id = p.project_id AND d.prompt_id = p.id AND d.environment_id = e.id AND d.replaced_at IS NULL
        WHERE p.project_id = $1 AND p.slug = $2`,
      pinned === undefined ? [projectId, slug, environment] : [projectId, slug, environment, pinned],
    );
    return rows[0] ?? null;
  }

  /**
   * The prompt (no row: no such prompt), the environment (`environment_id` null: none of that slug;
   * a null `environment` matches none) and its current deployment (`deployment_id` null: none).
   */
  async findLive(projectId: string, slug: string, environment: string | null): Promise<LiveRow | null> {
    const rows: LiveRow[] = await this.deployments.manager.query(
      `SELECT p.id AS prompt_id, e.id AS environment_id, d.id AS deployment_id, d.deployment_version, d.deployed_at, v.version, d.split
         FROM prompts p
         LEFT JOIN environments e ON e.project_id = p.project_id AND e.slug = $3::text
         LEFT JOIN deployments d ON d.project_id = p.project_id AND d.prompt_id = p.id AND d.environment_id = e.id AND d.replaced_at IS NULL
         LEFT JOIN prompt_versions v ON v.project_id = d.project_id AND v.id = d.version_id
        WHERE p.project_id = $1 AND p.slug = $2`,
      [projectId, slug, environment],
    );
    return rows[0] ?? null;
  }

  /** Per version an earlier (replaced) deployment of this prompt and environment served, as one of its arms or alone: when it stopped. */
  async servedBefore(projectId: string, promptId: string, environmentId: string): Promise<Map<number, Date>> {
    const rows: Array<{ version: number; last_served: Date | string }> = await this.deployments.manager.query(
      `SELECT COALESCE((arm ->> 'version')::integer, v.version) AS version, max(o.replaced_at) AS last_served
         FROM deployments o
         JOIN prompt_versions v ON v.project_id = o.project_id AND v.id = o.version_id
         LEFT JOIN LATERAL jsonb_array_elements(o.split) AS arm ON true
        WHERE o.project_id = $1 AND o.prompt_id = $2 AND o.environment_id = $3 AND o.replaced_at IS NOT NULL
        GROUP BY 1`,
      [projectId, promptId, environmentId],
    );
    return new Map(rows.map((row) => [Number(row.version), new Date(row.last_served)]));
  }
}
