import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { AuditLog } from '../audit/audit-log';
import { RegistryCache } from '../registry-cache/registry-cache';
import { PatchProjectSettingsDto, ProjectSettingsDto } from './project-settings.dto';
import { ProjectSettingsEntity } from './project-settings.entity';

export interface ProjectSettings {
  recordEmbeddingInputs: boolean;
  updatedAt: Date | null;
}

const DEFAULTS: ProjectSettings = { recordEmbeddingInputs: true, updatedAt: null };

/**
 * A project's settings, read on the calls they govern through the registry's cache: a change
 * publishes the project's registry change in its transaction, so every instance drops its copy on
 * commit, and REGISTRY_CACHE_TTL_MS bounds the staleness when a notification is lost.
 */
@Injectable()
export class ProjectSettingsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cache: RegistryCache,
    private readonly audit: AuditLog,
  ) {}

  /** The settings a call runs with (cached). */
  async of(projectId: string): Promise<ProjectSettings> {
    const key = RegistryCache.key(projectId, '', 'settings');
    return (await this.cache.getOrLoad(key, projectId, () => this.read(projectId))) as ProjectSettings;
  }

  async get(projectId: string): Promise<ProjectSettingsDto> {
    return toDto(await this.read(projectId));
  }

  async update(projectId: string, patch: PatchProjectSettingsDto): Promise<ProjectSettingsDto> {
    const saved = await this.dataSource.transaction(async (manager) => {
      const before = await this.read(projectId, manager, true);
      const after: ProjectSettings = { ...before, ...definedOf(patch), updatedAt: new Date() };
      await manager
        .createQueryBuilder()
        .insert()
        .into(ProjectSettingsEntity)
        .values({ projectId, recordEmbeddingInputs: after.recordEmbeddingInputs, updatedAt: after.updatedAt! })
        .orUpdate(['record_embedding_inputs', 'updated_at'], ['project_id'])
        .execute();
      await this.audit.record(manager, {
        projectId,
        action: 'settings.updated',
        resourceType: 'settings',
        resourceId: 'project',
        before: { recordEmbeddingInputs: before.recordEmbeddingInputs },
        after: { recordEmbeddingInputs: after.recordEmbeddingInputs },
      });
      await this.cache.announce(projectId, manager);
      return after;
    });
    this.cache.invalidateProject(projectId);
    return toDto(saved);
  }

  private async read(projectId: string, manager: EntityManager = this.dataSource.manager, lock = false): Promise<ProjectSettings> {
    const row = await manager.getRepository(ProjectSettingsEntity).findOne({
      where: { projectId },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    return row ? { recordEmbeddingInputs: row.recordEmbeddingInputs, updatedAt: row.updatedAt } : DEFAULTS;
  }
}

function definedOf(patch: PatchProjectSettingsDto): Partial<ProjectSettings> {
  return patch.recordEmbeddingInputs === undefined ? {} : { recordEmbeddingInputs: patch.recordEmbeddingInputs };
}

const toDto = (settings: ProjectSettings): ProjectSettingsDto => ({
  object: 'project.settings',
  recordEmbeddingInputs: settings.recordEmbeddingInputs,
  updatedAt: settings.updatedAt ? settings.updatedAt.toISOString() : null,
});
