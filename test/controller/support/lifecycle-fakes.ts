import { randomUUID } from 'node:crypto';

import type { EntityManager } from 'typeorm';

import { notFound } from '../../../src/common/errors';
import { DeploymentEntity } from '../../../src/registry/deployments/deployment.entity';
import type { DeploymentRow } from '../../../src/registry/deployments/deployments.repository';
import { EnvironmentEntity } from '../../../src/registry/environments/environment.entity';
import { PromptEntity } from '../../../src/registry/prompts/prompt.entity';
import type { PromptVersionEntity } from '../../../src/registry/prompts/prompt-version.entity';
import { PROJECT_ID } from './fakes';

/**
 * What the lifecycle's real services (PromptLifecycleService, UndeployService,
 * DeploymentRequestsService's undeploy, EnvironmentDeletionService) read and write, in memory, for
 * test/controller/lifecycle.controller-spec.ts. Three prompts: `support-reply` (v3 deployed in
 * staging, production and locked), `draft` (deployed nowhere) and `shelved` (archived); five
 * environments: production (requires approval), locked (requires approval, bars keys), staging,
 * empty (runs nothing) and waiting (runs nothing, one pending request). The real conditions:
 * test/lifecycle-*.e2e-spec.ts.
 */

const environment = (slug: string, requiresApproval = false, barsKeys = false) =>
  Object.assign(new EnvironmentEntity(), {
    projectId: PROJECT_ID,
    id: randomUUID(),
    slug,
    createdAt: new Date(0),
    requiresApproval,
    barsKeys,
  });

const prompt = (slug: string, archivedAt: Date | null = null) =>
  Object.assign(new PromptEntity(), {
    projectId: PROJECT_ID,
    id: randomUUID(),
    slug,
    kind: 'prompt',
    lastVersion: 3,
    createdAt: new Date(0),
    updatedAt: new Date(0),
    archivedAt,
  });

export class LifecycleWorld {
  readonly environments = new Map<string, EnvironmentEntity>(
    [
      environment('production', true),
      environment('locked', true, true),
      environment('staging'),
      environment('empty'),
      environment('waiting'),
    ].map((e) => [e.slug, e]),
  );
  readonly prompts = new Map<string, PromptEntity>(
    [prompt('support-reply'), prompt('draft'), prompt('shelved', new Date('2025-01-01T00:00:00Z'))].map((p) => [p.slug, p]),
  );
  /** Current deployments: `<promptId> <environmentId>` → the row. */
  readonly current = new Map<string, DeploymentEntity>();
  readonly version = { id: randomUUID(), version: 3 } as PromptVersionEntity;
  /** The environment ids with a pending deployment request. */
  readonly pending = new Set<string>([this.environments.get('waiting')!.id]);

  constructor() {
    for (const slug of ['staging', 'production', 'locked']) this.deploy('support-reply', slug);
  }

  deploy(promptSlug: string, environmentSlug: string): void {
    const p = this.prompts.get(promptSlug)!;
    const e = this.environments.get(environmentSlug)!;
    this.current.set(
      `${p.id} ${e.id}`,
      Object.assign(new DeploymentEntity(), {
        projectId: PROJECT_ID,
        id: randomUUID(),
        promptId: p.id,
        environmentId: e.id,
        versionId: this.version.id,
        deploymentVersion: 1,
        deployedAt: new Date(0),
        replacedAt: null,
        split: null,
        stickyBy: null,
        splitRules: null,
        guards: null,
      }),
    );
  }

  /** PromptsService's require and lock. */
  readonly promptsService = {
    require: async (_projectId: string, slug: string): Promise<PromptEntity> => {
      const found = this.prompts.get(slug);
      if (!found) throw notFound('Prompt not found');
      return Object.assign(new PromptEntity(), found);
    },
    lock: async () => undefined,
  };

  /** PromptsRepository's write. */
  readonly promptsRepository = {
    setArchived: async (_m: EntityManager, _projectId: string, id: string, at: Date | null) => {
      const found = [...this.prompts.values()].find((p) => p.id === id)!;
      found.archivedAt = at;
    },
  };

  /** DeploymentsRepository's reads and write of current deployments. */
  readonly deploymentsRepository = {
    listCurrent: async (_projectId: string, filter: { promptIds?: string[] }): Promise<DeploymentRow[]> =>
      [...this.current.values()]
        .filter((d) => !filter.promptIds || filter.promptIds.includes(d.promptId))
        .map((d) => this.rowOf(d))
        .sort((a, b) => a.environment.localeCompare(b.environment)),
    findCurrent: async (_m: EntityManager, _projectId: string, promptId: string, environmentId: string) =>
      this.current.get(`${promptId} ${environmentId}`) ?? null,
    markReplaced: async (_m: EntityManager, _projectId: string, id: string) => {
      for (const [key, d] of this.current) if (d.id === id) this.current.delete(key);
    },
  };

  readonly environmentsService = {
    findBySlug: async (_projectId: string, slug: string) => this.environments.get(slug) ?? null,
  };

  readonly environmentsRepository = {
    findBySlugForUpdate: async (_m: EntityManager, _projectId: string, slug: string) => this.environments.get(slug) ?? null,
  };

  readonly versions = { findById: async () => this.version };

  /**
   * The one transaction's manager EnvironmentDeletionService queries by SQL: who runs in an
   * environment, its pending requests, its history, and the deletes.
   */
  readonly manager = {
    query: async (sql: string, params: unknown[]): Promise<unknown[]> => {
      const environmentId = params[1] as string;
      if (sql.includes('replaced_at IS NULL'))
        return [...this.current.values()]
          .filter((d) => d.environmentId === environmentId)
          .map((d) => ({ slug: this.promptOf(d.promptId).slug }))
          .sort((a, b) => a.slug.localeCompare(b.slug));
      if (sql.includes("status = 'pending'")) return [{ n: this.pending.has(environmentId) ? 1 : 0 }];
      if (sql.includes('GROUP BY')) return [];
      if (sql.startsWith('DELETE FROM environments')) {
        for (const [slug, e] of this.environments) if (e.id === environmentId) this.environments.delete(slug);
      }
      return [];
    },
  };

  private promptOf(id: string): PromptEntity {
    return [...this.prompts.values()].find((p) => p.id === id)!;
  }

  private rowOf(d: DeploymentEntity): DeploymentRow {
    const p = this.promptOf(d.promptId);
    const e = [...this.environments.values()].find((x) => x.id === d.environmentId)!;
    return {
      id: d.id,
      prompt_id: p.id,
      slug: p.slug,
      kind: p.kind,
      environment: e.slug,
      version: this.version.version,
      version_id: this.version.id,
      deployment_version: d.deploymentVersion,
      deployed_at: d.deployedAt,
      replaced_at: null,
      split: null,
      sticky_by: null,
      split_rules: null,
      guards: null,
    };
  }
}
