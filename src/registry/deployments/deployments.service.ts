import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { AuditLog } from '../../audit/audit-log';
import { conflict, invalidBody, notFound } from '../../common/errors';
import { newId } from '../../common/ids';
import { CreateTransaction, plainTransaction } from '../../idempotency/create-transaction';
import { RegistryCache } from '../../registry-cache/registry-cache';
import { EnvironmentEntity } from '../environments/environment.entity';
import { DeployGateRefused, EnvironmentGates } from '../environments/environment-gates';
import { EnvironmentsService } from '../environments/environments.service';
import { PromptEntity } from '../prompts/prompt.entity';
import { PromptVersionEntity } from '../prompts/prompt-version.entity';
import { archivedMessage, PROMPT_NOT_FOUND, PromptsService } from '../prompts/prompts.service';
import { VersionsRepository } from '../prompts/versions.repository';
import { isSlugLike } from '../slugs';
import { deploymentRowOf, GuardedSplit, sameSplit, splitBodyProblems } from './deploy-body';
import { DeploymentEntity } from './deployment.entity';
import { toDeploymentDto } from './deployments.mapper';
import { DeploymentRow, DeploymentsRepository } from './deployments.repository';
import { DeployDto, DeploymentDto, DeploymentListDto, DeploymentsQuery } from './dto/deployment.dto';
import { storedGuards } from './guards';
import { SplitArm } from './split';

/** A deploy body checked against the database (DeploymentsService.prepare): what it deploys, and whether that changes anything. */
export interface PreparedDeploy {
  /** Locked (PromptsService.lock) in the transaction that prepared it. */
  prompt: PromptEntity;
  environment: EnvironmentEntity;
  /** The version, or a split's control. */
  version: PromptVersionEntity;
  split: GuardedSplit | null;
  /** False when the environment already runs exactly this. */
  changes: boolean;
}

/** An environment's current deployment as its results read it: a plain one is one arm of weight 1. */
export interface LiveDeployment {
  prompt: string;
  environment: string;
  deploymentId: string;
  deploymentVersion: number;
  deployedAt: Date;
  /** The split's arms, the control first; a plain deployment's one version. */
  arms: SplitArm[];
  /** Per version an earlier deployment in this environment served: when that deployment was replaced. */
  servedBefore: Map<number, Date>;
}

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

  /**
   * Deploys `version` (default: the newest); deploying the version already current changes nothing.
   * Protection aside: the deploy route goes through DeploymentRequestsService.deploy, which holds a
   * deploy to a protected environment as a request (docs/security.md, "Approvals").
   */
  async deploy(
    projectId: string,
    slug: string,
    dto: DeployDto,
    tx: CreateTransaction = plainTransaction(this.dataSource),
  ): Promise<DeploymentDto> {
    const deployed = await this.recordingRefusals(() =>
      tx.run(async (manager) => this.write(manager, await this.prepare(manager, projectId, slug, dto))),
    );
    this.cache.invalidateProject(projectId);
    return deployed;
  }

  /**
   * A deploy body checked against the database in `manager`'s transaction, under the prompt's row
   * lock (taken here): what it would deploy, or the 400 naming every problem. Nothing is written;
   * `write` deploys it (a protected environment's request holds it in between: DeploymentRequestsService).
   */
  async prepare(manager: EntityManager, projectId: string, slug: string, dto: DeployDto): Promise<PreparedDeploy> {
    const prompt = await this.prompts.require(projectId, slug, manager);
    await this.prompts.lock(manager, prompt);
    // Re-read under the lock: a version created meanwhile counts as the newest.
    const locked = await this.prompts.require(projectId, slug, manager);
    if (locked.archivedAt) throw conflict(archivedMessage(slug, 'deploy it'));
    const environment = await this.environments.findBySlug(projectId, dto.environment, manager);
    const details = splitBodyProblems(dto);
    const numbers = dto.split ? dto.split.map((arm) => arm.version) : [dto.version ?? locked.lastVersion];
    const versions: PromptVersionEntity[] = [];
    for (const [index, number] of numbers.entries()) {
      const found = number > 0 ? await this.versions.findByNumber(projectId, prompt.id, number, manager) : null;
      if (found) versions.push(found);
      else if (dto.split) details.push(`split.${index}.version: "${slug}" has no version ${number}`);
      else
        details.push(
          dto.version === undefined ? `version: "${slug}" has no versions yet` : `version: "${slug}" has no version ${dto.version}`,
        );
    }
    if (!environment) details.unshift(`environment: no environment "${dto.environment}" in this project`);
    if (!environment || details.length > 0) throw invalidBody(details);
    const split: GuardedSplit | null = dto.split
      ? { arms: dto.split, stickyBy: dto.stickyBy ?? 'thread', rules: dto.rules ?? [], guards: storedGuards(dto.guards), versions }
      : null;
    const version = versions[0];
    return { prompt: locked, environment, version, split, changes: await this.changes(manager, locked, environment, version, split) };
  }

  /** Deploys what `prepare` checked, in the same transaction; the caller invalidates the cache once it commits. */
  async write(manager: EntityManager, prepared: PreparedDeploy): Promise<DeploymentDto> {
    const { prompt, environment, version, split } = prepared;
    const { deployment, changed } = await this.deployLocked(manager, prompt, environment, version, split);
    if (changed) await this.cache.announce(prompt.projectId, manager);
    return toDeploymentDto(deploymentRowOf(deployment, prompt, environment, version));
  }

  /** Whether deploying this would change what the environment runs (deployLocked changes nothing otherwise). */
  async changes(
    manager: EntityManager,
    prompt: PromptEntity,
    environment: EnvironmentEntity,
    version: PromptVersionEntity,
    split: GuardedSplit | null,
  ): Promise<boolean> {
    const current = await this.deployments.findCurrent(manager, prompt.projectId, prompt.id, environment.id);
    return !(current?.versionId === version.id && sameSplit(current, split));
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
   * in `manager`'s transaction, and invalidates the registry cache once it commits. `by: 'system'`
   * audits it as the server's own change (a tripped guard) rather than the request's caller.
   */
  async deployLocked(
    manager: EntityManager,
    prompt: PromptEntity,
    environment: EnvironmentEntity,
    version: PromptVersionEntity,
    split: GuardedSplit | null = null,
    by?: 'system',
  ): Promise<{ deployment: DeploymentEntity; changed: boolean }> {
    const { projectId } = prompt;
    const current = await this.deployments.findCurrent(manager, projectId, prompt.id, environment.id);
    if (current?.versionId === version.id && sameSplit(current, split)) return { deployment: current, changed: false };
    // Every arm passes the environment's gate, so a split cannot carry an ungated version in (docs/evals.md).
    for (const gated of split?.versions ?? [version]) await this.checkGate(manager, prompt, environment, gated);
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
      split: split?.arms ?? null,
      stickyBy: split?.stickyBy ?? null,
      splitRules: split?.rules ?? null,
      guards: split?.guards ?? null,
    });
    const inserted = await this.deployments.insert(manager, deployment);
    await this.audit.record(manager, {
      projectId,
      ...(by ? { actor: by } : {}),
      action: 'deployment.created',
      resourceType: 'deployment',
      resourceId: `${prompt.slug}@${environment.slug}`,
      before: current
        ? {
            environment: environment.slug,
            versionId: current.versionId,
            ...(current.split ? { split: current.split } : {}),
            ...(current.guards ? { guards: current.guards } : {}),
          }
        : null,
      after: {
        prompt: prompt.slug,
        environment: environment.slug,
        version: version.version,
        versionId: version.id,
        deploymentVersion: deployment.deploymentVersion,
        ...(split ? { split: split.arms, stickyBy: split.stickyBy, rules: split.rules } : {}),
        ...(split?.guards ? { guards: split.guards } : {}),
      },
    });
    return { deployment: inserted, changed: true };
  }

  /**
   * The split `ref.deploymentId` again at new weights (same stickiness, rules and guards), by
   * deployLocked, if it is still the environment's current deployment; null when another change
   * came first, or it is gone. Takes the prompt's row lock in `manager`'s transaction and announces
   * the change there; the caller invalidates this instance's cache once it commits.
   */
  async reweighLocked(
    manager: EntityManager,
    ref: { projectId: string; prompt: string; environment: string; deploymentId: string },
    weights: Map<number, number>,
    by?: 'system',
  ): Promise<DeploymentEntity | null> {
    const prompt = await this.prompts.require(ref.projectId, ref.prompt, manager);
    await this.prompts.lock(manager, prompt);
    const environment = await this.environments.findBySlug(ref.projectId, ref.environment, manager);
    const current = environment && (await this.deployments.findCurrent(manager, ref.projectId, prompt.id, environment.id));
    if (!environment || !current?.split || current.id !== ref.deploymentId) return null;
    const arms = current.split.map((arm) => ({ version: arm.version, weight: weights.get(arm.version) ?? arm.weight }));
    const found = await this.versions.findByNumbers(
      ref.projectId,
      prompt.id,
      arms.map((arm) => arm.version),
      manager,
    );
    const versions = arms.map((arm) => found.find((v) => v.version === arm.version)!);
    const split = { arms, stickyBy: current.stickyBy ?? 'thread', rules: current.splitRules ?? [], guards: current.guards, versions };
    const { deployment, changed } = await this.deployLocked(manager, prompt, environment, versions[0], split, by);
    if (!changed) return null;
    await this.cache.announce(ref.projectId, manager);
    return deployment;
  }

  private async checkGate(manager: EntityManager, prompt: PromptEntity, environment: EnvironmentEntity, version: PromptVersionEntity) {
    // An embedding entry has nothing to evaluate: environment gates hold prompts and assistants (docs/evals.md, "The deploy gate").
    if (prompt.kind === 'embedding') return;
    const gate = await this.gates.check(manager, {
      projectId: prompt.projectId,
      promptId: prompt.id,
      promptSlug: prompt.slug,
      environmentId: environment.id,
      environment: environment.slug,
      versionId: version.id,
      version: version.version,
    });
    if (gate) await this.audit.record(manager, gate);
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

  /** The environment's current deployment: 404 for an unknown prompt or environment, and when nothing is deployed there. */
  async live(projectId: string, slug: string, environment: string): Promise<LiveDeployment> {
    const row = isSlugLike(slug) ? await this.deployments.findLive(projectId, slug, isSlugLike(environment) ? environment : null) : null;
    if (!row) throw notFound(PROMPT_NOT_FOUND);
    if (row.environment_id === null) throw notFound('Environment not found');
    if (row.deployment_id === null) throw notFound(`No deployment in ${environment}`);
    const split: SplitArm[] | null = typeof row.split === 'string' ? JSON.parse(row.split) : row.split;
    return {
      prompt: slug,
      environment,
      deploymentId: row.deployment_id,
      deploymentVersion: Number(row.deployment_version),
      deployedAt: new Date(row.deployed_at!),
      arms: split ?? [{ version: Number(row.version), weight: 1 }],
      servedBefore: await this.deployments.servedBefore(projectId, row.prompt_id, row.environment_id),
    };
  }
}
