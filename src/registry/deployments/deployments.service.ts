import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { AuditLog } from '../../audit/audit-log';
import { invalidBody } from '../../common/errors';
import { newId } from '../../common/ids';
import { CreateTransaction, plainTransaction } from '../../idempotency/create-transaction';
import { RegistryCache } from '../../registry-cache/registry-cache';
import { EnvironmentEntity } from '../environments/environment.entity';
import { DeployGateRefused, EnvironmentGates } from '../environments/environment-gates';
import { EnvironmentsService } from '../environments/environments.service';
import { PromptEntity } from '../prompts/prompt.entity';
import { PromptVersionEntity } from '../prompts/prompt-version.entity';
import { PromptsService } from '../prompts/prompts.service';
import { VersionsRepository } from '../prompts/versions.repository';
import { isSlugLike } from '../slugs';
import { DeploymentEntity } from './deployment.entity';
import { toDeploymentDto } from './deployments.mapper';
import { DeploymentRow, DeploymentsRepository } from './deployments.repository';
import { DeployDto, DeploymentDto, DeploymentListDto, DeploymentsQuery } from './dto/deployment.dto';

/**
 * A deployment points one environment of one prompt at one version. Redeploying replaces the
 * current row (kept as history, replaced_at set) with a new one whose deploymentVersion is one more.
 */
@Injectable()
export class DeploymentsService {
  constructor(
    private readonly audit: AuditLog,
    private readonly dataSource: DataSource,
    private readonly prompts: PromptsService,
    private readonly versions: VersionsRepository,
    private readonly environments: EnvironmentsService,
    private readonly deployments: DeploymentsRepository,
    private readonly cache: RegistryCache,
    private readonly gates: EnvironmentGates,
  ) {}

  /** Deploys `version` (default: the newest); deploying the version already current changes nothing. */
  async deploy(
    projectId: string,
    slug: string,
    dto: DeployDto,
    tx: CreateTransaction = plainTransaction(this.dataSource),
  ): Promise<DeploymentDto> {
    const deployed = await this.recordingRefusals(() =>
      tx.run(async (manager) => {
        const prompt = await this.prompts.require(projectId, slug, manager);
        await this.prompts.lock(manager, prompt);
        // Re-read under the lock: a version created meanwhile counts as the newest.
        const locked = await this.prompts.require(projectId, slug, manager);
        const environment = await this.environments.findBySlug(projectId, dto.environment, manager);
        const number = dto.version ?? locked.lastVersion;
        const version = number > 0 ? await this.versions.findByNumber(projectId, prompt.id, number, manager) : null;
        const details: string[] = [];
        if (!environment) details.push(`environment: no environment "${dto.environment}" in this project`);
        if (!version)
          details.push(
            dto.version === undefined ? `version: "${slug}" has no versions yet` : `version: "${slug}" has no version ${dto.version}`,
          );
        if (!environment || !version) throw invalidBody(details);
        const { deployment, changed } = await this.deployLocked(manager, locked, environment, version);
        if (changed) await this.cache.announce(projectId, manager);
        return toDeploymentDto(this.toRow(deployment, locked, environment, version));
      }),
    );
    this.cache.invalidateProject(projectId);
    return deployed;
  }

  /**
   * Runs `work` (a transaction that deploys); a deploy the gate refused rolls it back, and the
   * refusal is then recorded in the audit trail on its own (docs/evals.md, "The deploy gate").
   */
  async recordingRefusals<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof DeployGateRefused) await this.dataSource.transaction((manager) => this.audit.record(manager, err.audit));
      throw err;
    }
  }

  /**
   * The one place deployments are written. The caller holds the prompt's row lock (PromptsService.lock)
   * in `manager`'s transaction, and invalidates the registry cache once it commits.
   */
  async deployLocked(
    manager: EntityManager,
    prompt: PromptEntity,
    environment: EnvironmentEntity,
    version: PromptVersionEntity,
  ): Promise<{ deployment: DeploymentEntity; changed: boolean }> {
    const { projectId } = prompt;
    const current = await this.deployments.findCurrent(manager, projectId, prompt.id, environment.id);
    if (current?.versionId === version.id) return { deployment: current, changed: false };
    // An embedding entry has nothing to evaluate: environment gates hold prompts and assistants (docs/evals.md, "The deploy gate").
    const gate =
      prompt.kind !== 'embedding' &&
      (await this.gates.check(manager, {
        projectId,
        promptId: prompt.id,
        promptSlug: prompt.slug,
        environmentId: environment.id,
        environment: environment.slug,
        versionId: version.id,
        version: version.version,
      }));
    if (gate) await this.audit.record(manager, gate);
    const now = new Date();
    if (current) await this.deployments.markReplaced(manager, projectId, current.id, now);
    const last = await this.deployments.lastDeploymentVersion(manager, projectId, prompt.id, environment.id);
    const deployment = Object.assign(new DeploymentEntity(), {
      projectId,
      id: newId(),
      promptId: prompt.id,
      environmentId: environment.id,
      versionId: version.id,
      deploymentVersion: last + 1,
      deployedAt: now,
      replacedAt: null,
    });
    const inserted = await this.deployments.insert(manager, deployment);
    await this.audit.record(manager, {
      projectId,
      action: 'deployment.created',
      resourceType: 'deployment',
      resourceId: `${prompt.slug}@${environment.slug}`,
      before: current ? { environment: environment.slug, versionId: current.versionId } : null,
      after: {
        prompt: prompt.slug,
        environment: environment.slug,
        version: version.version,
        versionId: version.id,
        deploymentVersion: deployment.deploymentVersion,
      },
    });
    return { deployment: inserted, changed: true };
  }

  async listCurrent(projectId: string, query: DeploymentsQuery): Promise<DeploymentListDto> {
    // A filter no slug can match matches nothing.
    if ([query.slug, query.environment].some((f) => f !== undefined && !isSlugLike(f))) return { object: 'list', data: [] };
    const rows = await this.deployments.listCurrent(projectId, { slug: query.slug, environment: query.environment });
    return { object: 'list', data: rows.map(toDeploymentDto) };
  }

  currentRows(projectId: string, manager?: EntityManager): Promise<DeploymentRow[]> {
    return this.deployments.listCurrent(projectId, {}, manager);
  }

  /** Every deployment of one prompt, newest first, replaced ones included. */
  async history(projectId: string, slug: string, environment?: string): Promise<DeploymentListDto> {
    const prompt = await this.prompts.require(projectId, slug);
    if (environment !== undefined && !isSlugLike(environment)) return { object: 'list', data: [] };
    return { object: 'list', data: (await this.deployments.history(projectId, prompt.id, environment)).map(toDeploymentDto) };
  }

  private toRow(d: DeploymentEntity, p: PromptEntity, e: EnvironmentEntity, v: PromptVersionEntity): DeploymentRow {
    return {
      id: d.id,
      prompt_id: p.id,
      slug: p.slug,
      kind: p.kind,
      environment: e.slug,
      version: v.version,
      version_id: v.id,
      deployment_version: d.deploymentVersion,
      deployed_at: d.deployedAt,
      replaced_at: d.replacedAt,
    };
  }
}
