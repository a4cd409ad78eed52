import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { AuditLog } from '../../audit/audit-log';
import { conflict } from '../../common/errors';
import { CreateTransaction, plainTransaction } from '../../idempotency/create-transaction';
import { RegistryCache } from '../../registry-cache/registry-cache';
import { DeploymentsRepository } from '../deployments/deployments.repository';
import { PromptDto } from './dto/prompt.dto';
import { PromptEntity } from './prompt.entity';
import { toPromptDto } from './prompts.mapper';
import { PromptsRepository } from './prompts.repository';
import { PromptsService } from './prompts.service';

/** Why a deployed prompt is not archived: archiving must not take an environment down behind its protection. */
export const deployedMessage = (slug: string, environments: string[]) =>
  `"${slug}" is deployed in ${environments.join(', ')}: undeploy it there first (DELETE /v2/prompts/${slug}/deployments/{environment}), then archive it`;

/**
 * Archiving and restoring prompts, assistants and embedding entries (docs/registry.md,
 * "Archiving"). An archived one keeps its slug, versions and deployment history; it is listed only
 * on asking, and neither invoked (RegistryService answers the invoke surfaces' 404 saying so) nor
 * deployed (409) nor given versions (409) until restored. Only an undeployed one is archived: an
 * environment stops serving through an undeploy, which a protected environment holds for approval.
 * Both are audited and announced to every instance's registry cache in their transaction.
 */
@Injectable()
export class PromptLifecycleService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditLog,
    private readonly prompts: PromptsService,
    private readonly repo: PromptsRepository,
    private readonly deployments: DeploymentsRepository,
    private readonly cache: RegistryCache,
  ) {}

  /** Archived already: answered as it is, nothing written. In the route's CreateTransaction (an Idempotency-Key's outcome commits with it). */
  archive(projectId: string, slug: string, tx?: CreateTransaction): Promise<PromptDto> {
    return this.change(projectId, slug, true, tx ?? plainTransaction(this.dataSource));
  }

  /** Live already: answered as it is, nothing written. */
  restore(projectId: string, slug: string, tx?: CreateTransaction): Promise<PromptDto> {
    return this.change(projectId, slug, false, tx ?? plainTransaction(this.dataSource));
  }

  /** Archives or restores `prompt` in the caller's transaction (apply's prune and restore); the caller holds its row lock. */
  async setArchived(manager: EntityManager, prompt: PromptEntity, archived: boolean): Promise<void> {
    const now = new Date();
    const before = prompt.archivedAt ? prompt.archivedAt.toISOString() : null;
    prompt.archivedAt = archived ? now : null;
    prompt.updatedAt = now;
    await this.repo.setArchived(manager, prompt.projectId, prompt.id, prompt.archivedAt, now);
    await this.audit.record(manager, {
      projectId: prompt.projectId,
      action: archived ? 'prompt.archived' : 'prompt.restored',
      resourceType: 'prompt',
      resourceId: prompt.slug,
      before: { slug: prompt.slug, kind: prompt.kind, archivedAt: before },
      after: { slug: prompt.slug, kind: prompt.kind, archivedAt: prompt.archivedAt?.toISOString() ?? null },
    });
    await this.cache.announce(prompt.projectId, manager);
  }

  /** The environments `prompt` is deployed in now, by slug. */
  async deployedIn(manager: EntityManager, prompt: PromptEntity): Promise<string[]> {
    const rows = await this.deployments.listCurrent(prompt.projectId, { promptIds: [prompt.id] }, manager);
    return rows.map((row) => row.environment);
  }

  private async change(projectId: string, slug: string, archived: boolean, tx: CreateTransaction): Promise<PromptDto> {
    const answer = await tx.run(async (manager) => {
      const prompt = await this.prompts.require(projectId, slug, manager);
      // The deploy path takes the same lock: a deploy cannot slip in between the check and the archive.
      await this.prompts.lock(manager, prompt);
      const locked = await this.prompts.require(projectId, slug, manager);
      if (archived !== !!locked.archivedAt) {
        const environments = archived ? await this.deployedIn(manager, locked) : [];
        if (environments.length > 0) throw conflict(deployedMessage(slug, environments));
        await this.setArchived(manager, locked, archived);
      }
      return toPromptDto(locked, await this.deployments.listCurrent(projectId, { promptIds: [locked.id] }, manager));
    });
    this.cache.invalidateProject(projectId);
    return answer;
  }
}
