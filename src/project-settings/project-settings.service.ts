import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { AuditLog } from '../audit/audit-log';
import { invalidBody } from '../common/errors';
import { RegistryCache } from '../registry-cache/registry-cache';
import { LiveGrader, liveGraderProblem } from './live-graders';
import { PatchProjectSettingsDto, ProjectSettingsDto } from './project-settings.dto';
import { ProjectSettingsEntity } from './project-settings.entity';

export interface ProjectSettings {
  recordEmbeddingInputs: boolean;
  liveGraders: LiveGrader[];
  updatedAt: Date | null;
}

const DEFAULTS: ProjectSettings = { recordEmbeddingInputs: true, liveGraders: [], updatedAt: null };
const keyOf = (projectId: string) => RegistryCache.key(projectId, '', 'settings');

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
    return (await this.cache.getOrLoad(keyOf(projectId), projectId, () => this.read(projectId))) as ProjectSettings;
  }

  /** The cached settings, or undefined when `of` must read them: a call that finds them pays no promise. */
  peek(projectId: string): ProjectSettings | undefined {
    return this.cache.get(keyOf(projectId))?.value as ProjectSettings | undefined;
  }

  async get(projectId: string): Promise<ProjectSettingsDto> {
    return toDto(await this.read(projectId));
  }

  async update(projectId: string, patch: PatchProjectSettingsDto): Promise<ProjectSettingsDto> {
    const saved = await this.dataSource.transaction(async (manager) => {
      if (patch.liveGraders !== undefined) await this.checkLiveGraders(manager, projectId, patch.liveGraders);
      const before = await this.read(projectId, manager, true);
      const after: ProjectSettings = { ...before, ...definedOf(patch), updatedAt: new Date() };
      await manager
        .createQueryBuilder()
        .insert()
        .into(ProjectSettingsEntity)
        .values({
          projectId,
          recordEmbeddingInputs: after.recordEmbeddingInputs,
          liveGraders: after.liveGraders,
          updatedAt: after.updatedAt!,
        })
        .orUpdate(['record_embedding_inputs', 'live_graders', 'updated_at'], ['project_id'])
        .execute();
      await this.audit.record(manager, {
        projectId,
        action: 'settings.updated',
        resourceType: 'settings',
        resourceId: 'project',
        before: audited(before),
        after: audited(after),
      });
      await this.cache.announce(projectId, manager);
      return after;
    });
    this.cache.invalidateProject(projectId);
    return toDto(saved);
  }

  /**
   * Every entry names a grader of the project that can score a live call (live-graders.ts): all
   * problems in one 400. The graders are read by SQL: they belong to evals/, a layer above this one
   * (as the deploy gate reads runs: docs/evals.md, "Decisions").
   */
  private async checkLiveGraders(manager: EntityManager, projectId: string, entries: LiveGrader[]): Promise<void> {
    const names = [...new Set(entries.map((entry) => entry.grader))];
    const rows: { name: string; type: string; config: Record<string, unknown> | string }[] = names.length
      ? await manager.query(`SELECT name, type, config FROM graders WHERE project_id = $1 AND name = ANY($2::text[])`, [
          projectId,
          `{${names.map((name) => `"${name}"`).join(',')}}`,
        ])
      : [];
    const problems = entries.flatMap((entry, i) => {
      const row = rows.find((r) => r.name === entry.grader);
      if (!row) return [`liveGraders[${i}].grader: no grader named "${entry.grader}" in this project`];
      const config = typeof row.config === 'string' ? (JSON.parse(row.config) as Record<string, unknown>) : row.config;
      const problem = liveGraderProblem(row.name, row.type, config);
      return problem ? [`liveGraders[${i}].grader: ${problem}`] : [];
    });
    if (problems.length) throw invalidBody(problems);
  }

  private async read(projectId: string, manager: EntityManager = this.dataSource.manager, lock = false): Promise<ProjectSettings> {
    const row = await manager.getRepository(ProjectSettingsEntity).findOne({
      where: { projectId },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    return row ? { recordEmbeddingInputs: row.recordEmbeddingInputs, liveGraders: row.liveGraders, updatedAt: row.updatedAt } : DEFAULTS;
  }
}

function definedOf(patch: PatchProjectSettingsDto): Partial<ProjectSettings> {
  return {
    ...(patch.recordEmbeddingInputs === undefined ? {} : { recordEmbeddingInputs: patch.recordEmbeddingInputs }),
    ...(patch.liveGraders === undefined ? {} : { liveGraders: patch.liveGraders.map(entryOf) }),
  };
}

/** An entry as stored: only its own fields, in one order. */
const entryOf = (entry: LiveGrader): LiveGrader => ({
  grader: entry.grader,
  share: entry.share,
  ...(entry.prompt !== undefined ? { prompt: entry.prompt } : {}),
  ...(entry.environment !== undefined ? { environment: entry.environment } : {}),
});

const audited = (settings: ProjectSettings) => ({
  recordEmbeddingInputs: settings.recordEmbeddingInputs,
  liveGraders: settings.liveGraders,
});

const toDto = (settings: ProjectSettings): ProjectSettingsDto => ({
  object: 'project.settings',
  recordEmbeddingInputs: settings.recordEmbeddingInputs,
  liveGraders: settings.liveGraders,
  updatedAt: settings.updatedAt ? settings.updatedAt.toISOString() : null,
});
