import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { AuditLog } from '../../audit/audit-log';
import { conflict, notFound } from '../../common/errors';
import { isSlugLike } from '../../common/validation/slug';
import { RegistryCache } from '../../registry-cache/registry-cache';
import { EnvironmentDeletedDto } from './environment.dto';
import { EnvironmentEntity } from './environment.entity';
import { EnvironmentGates } from './environment-gates';
import { EnvironmentsRepository } from './environments.repository';

/** The refusals of a delete, as their 409 bodies say them (docs/registry.md, "Deleting an environment"). */
export const DELETE_ENVIRONMENT_ERRORS = {
  deployed: (slug: string, prompts: string[]) =>
    `"${slug}" runs ${prompts.join(', ')}: undeploy ${prompts.length === 1 ? 'it' : 'them'} first (DELETE /v2/prompts/{slug}/deployments/${slug})`,
  protected: (slug: string) =>
    `"${slug}" is a protected environment: a project admin removes its protection first (DELETE /v2/environments/${slug}/protection)`,
  pending: (slug: string, count: number) =>
    `${count} deployment request${count === 1 ? '' : 's'} for "${slug}" ${count === 1 ? 'is' : 'are'} pending: approve, reject or cancel ${count === 1 ? 'it' : 'them'} first`,
};

/**
 * Deleting an environment (docs/registry.md, "Deleting an environment"): only one that runs
 * nothing (no current deployment), is not protected (lifting a protection is a project admin's:
 * deleting and re-creating must not do it for a key) and has no pending deployment request. Its
 * deployment history (replaced deployments, whose rows name it) goes with it, with its decided
 * deployment requests and its deploy gate: the audit event records what was removed, and the
 * audit trail keeps every deployment made there. The slug can then be created again, afresh.
 */
@Injectable()
export class EnvironmentDeletionService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly environments: EnvironmentsRepository,
    private readonly gates: EnvironmentGates,
    private readonly audit: AuditLog,
    private readonly cache: RegistryCache,
  ) {}

  async delete(projectId: string, slug: string): Promise<EnvironmentDeletedDto> {
    const deleted = await this.dataSource.transaction(async (manager) => {
      // Locked: a deploy there (which reads it) and a protection change wait for this to end.
      const environment = isSlugLike(slug) ? await this.lock(manager, projectId, slug) : null;
      if (!environment) throw notFound('Environment not found');
      const refusal = await this.refusal(manager, environment);
      if (refusal) throw conflict(refusal);
      await this.remove(manager, environment);
      return { id: environment.id, slug, object: 'environment' as const, deleted: true as const };
    });
    this.cache.invalidateProject(projectId);
    return deleted;
  }

  /** The environment, its row locked in `manager`'s transaction (a deploy there and a protection change wait); null when none. */
  lock(manager: EntityManager, projectId: string, slug: string): Promise<EnvironmentEntity | null> {
    return this.environments.findBySlugForUpdate(manager, projectId, slug);
  }

  /** Why `environment` cannot be deleted now, or null (`parley apply --prune` keeps such an environment and says why). */
  async refusal(manager: EntityManager, environment: EnvironmentEntity): Promise<string | null> {
    const { slug } = environment;
    if (environment.requiresApproval || environment.barsKeys) return DELETE_ENVIRONMENT_ERRORS.protected(slug);
    const running = await this.runningPrompts(manager, environment);
    if (running.length > 0) return DELETE_ENVIRONMENT_ERRORS.deployed(slug, running);
    const rows: { n: number }[] = await manager.query(
      "SELECT count(*)::int AS n FROM deployment_requests WHERE project_id = $1 AND environment_id = $2 AND status = 'pending'",
      [environment.projectId, environment.id],
    );
    const pending = Number(rows[0]?.n ?? 0);
    return pending > 0 ? DELETE_ENVIRONMENT_ERRORS.pending(slug, pending) : null;
  }

  /**
   * Deletes `environment` with its history, decided requests and gate, audited and announced in
   * `manager`'s transaction (the caller checked `refusal`, and invalidates this instance's cache after commit).
   */
  async remove(manager: EntityManager, environment: EnvironmentEntity): Promise<void> {
    const { projectId, slug } = environment;
    const gate = await this.gates.get(projectId, environment.id, manager);
    const history = await this.history(manager, environment);
    const params = [projectId, environment.id];
    await manager.query('DELETE FROM deployment_requests WHERE project_id = $1 AND environment_id = $2', params);
    await manager.query('DELETE FROM deployments WHERE project_id = $1 AND environment_id = $2', params);
    await manager.query('DELETE FROM environment_gates WHERE project_id = $1 AND environment_id = $2', params);
    await manager.query('DELETE FROM environments WHERE project_id = $1 AND id = $2', params);
    await this.audit.record(manager, {
      projectId,
      action: 'environment.deleted',
      resourceType: 'environment',
      resourceId: slug,
      before: { slug, createdAt: new Date(environment.createdAt).toISOString(), ...(gate ? { gate: { ...gate } } : {}), history },
      after: null,
    });
    // A cached resolution naming it (a pinned version, a cached miss) must not outlive it, on any instance.
    await this.cache.announce(projectId, manager);
  }

  /** The slugs of the prompts deployed there now. */
  private async runningPrompts(manager: EntityManager, environment: EnvironmentEntity): Promise<string[]> {
    const rows: { slug: string }[] = await manager.query(
      `SELECT p.slug FROM deployments d JOIN prompts p ON p.project_id = d.project_id AND p.id = d.prompt_id
        WHERE d.project_id = $1 AND d.environment_id = $2 AND d.replaced_at IS NULL ORDER BY p.slug`,
      [environment.projectId, environment.id],
    );
    return rows.map((row) => row.slug);
  }

  /** What the deleted history held: how many deployments, of which prompts. */
  private async history(manager: EntityManager, environment: EnvironmentEntity): Promise<{ deployments: number; prompts: string[] }> {
    const rows: { slug: string; n: number }[] = await manager.query(
      `SELECT p.slug, count(*)::int AS n FROM deployments d JOIN prompts p ON p.project_id = d.project_id AND p.id = d.prompt_id
        WHERE d.project_id = $1 AND d.environment_id = $2 GROUP BY p.slug ORDER BY p.slug`,
      [environment.projectId, environment.id],
    );
    return { deployments: rows.reduce((sum, row) => sum + Number(row.n), 0), prompts: rows.map((row) => row.slug) };
  }
}
