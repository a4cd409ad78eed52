import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { AuditLog } from '../../audit/audit-log';
import { conflict, isUniqueViolation } from '../../common/errors';
import { newId } from '../../common/ids';
import { CreateTransaction } from '../../idempotency/create-transaction';
import { RegistryCache } from '../../registry-cache/registry-cache';
import { EnvironmentDto } from './environment.dto';
import { EnvironmentEntity } from './environment.entity';
import { EnvironmentsRepository } from './environments.repository';

/** Every project starts with these; more can be added, and any deleted once it runs nothing (docs/registry.md). */
export const DEFAULT_ENVIRONMENTS = ['preview', 'staging', 'production'] as const;

export const toEnvironmentDto = (e: EnvironmentEntity): EnvironmentDto => ({
  id: e.id,
  slug: e.slug,
  createdAt: e.createdAt.toISOString(),
  protection: e.requiresApproval || e.barsKeys ? { requireApproval: e.requiresApproval, barKeys: e.barsKeys } : null,
});

@Injectable()
export class EnvironmentsService {
  constructor(
    private readonly audit: AuditLog,
    private readonly dataSource: DataSource,
    private readonly repo: EnvironmentsRepository,
    private readonly cache: RegistryCache,
  ) {}

  /** Called by WorkspacesService.createProject inside its transaction. */
  async seedDefaults(projectId: string, manager: EntityManager): Promise<void> {
    await this.repo.insert(
      DEFAULT_ENVIRONMENTS.map((slug) => this.entity(projectId, slug)),
      manager,
    );
  }

  /** POST /v2/environments: in the route's CreateTransaction (with its Idempotency-Key outcome). */
  async createIn(tx: CreateTransaction, projectId: string, slug: string): Promise<EnvironmentDto> {
    const created = await tx.run((manager) => this.create(projectId, slug, manager));
    this.cache.invalidateProject(projectId);
    return created;
  }

  /** In the caller's transaction when given (it then invalidates the cache after commit), else in one of its own. */
  async create(projectId: string, slug: string, manager?: EntityManager): Promise<EnvironmentDto> {
    if (!manager) {
      const created = await this.dataSource.transaction((own) => this.create(projectId, slug, own));
      this.cache.invalidateProject(projectId);
      return created;
    }
    try {
      const [created] = await this.repo.insert([this.entity(projectId, slug)], manager);
      await this.audit.record(manager, {
        projectId,
        action: 'environment.created',
        resourceType: 'environment',
        resourceId: slug,
        after: { slug },
      });
      // A cached miss for this environment must not outlive its creation, on any instance.
      await this.cache.announce(projectId, manager);
      return toEnvironmentDto(created);
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(`Environment "${slug}" already exists`);
      throw err;
    }
  }

  async list(projectId: string, manager?: EntityManager): Promise<EnvironmentDto[]> {
    return (await this.repo.list(projectId, manager)).map(toEnvironmentDto);
  }

  listEntities(projectId: string, manager?: EntityManager): Promise<EnvironmentEntity[]> {
    return this.repo.list(projectId, manager);
  }

  findBySlug(projectId: string, slug: string, manager?: EntityManager): Promise<EnvironmentEntity | null> {
    return this.repo.findBySlug(projectId, slug, manager);
  }

  private entity(projectId: string, slug: string): EnvironmentEntity {
    return Object.assign(new EnvironmentEntity(), {
      projectId,
      id: newId(),
      slug,
      createdAt: new Date(),
      requiresApproval: false,
      barsKeys: false,
    });
  }
}
