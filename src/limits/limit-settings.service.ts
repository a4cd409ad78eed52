import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { AuditLog } from '../audit/audit-log';
import { notFound } from '../common/errors';
import { ChangeNotifier } from '../database/changes';
import { WorkspacesService } from '../workspaces/workspaces.service';
import { ApiKeyBudgetDto, ProjectBudgetsDto } from './dto/budgets.dto';
import { ApiKeyLimitsDto, LimitValuesDto, ProjectLimitsDto, SetProjectLimitsDto } from './dto/limits.dto';
import { LimitSettingEntity } from './limit-setting.entity';
import { fromLimitValuesDto, toBudgetStateDto, toLimitsDto, toLimitValues } from './limits.mapper';
import { LimitsRepository } from './limits.repository';
import { LimitsService } from './limits.service';
import { hasAnyLimit, KEY_DEFAULT_SUBJECT, LimitValues, PROJECT_SUBJECT } from './limits.types';

/** Reading and setting limits: the admin API and `parley apply` (docs/security.md, "Limits"). */
@Injectable()
export class LimitSettingsService {
  constructor(
    private readonly repo: LimitsRepository,
    private readonly limits: LimitsService,
    private readonly workspaces: WorkspacesService,
    private readonly dataSource: DataSource,
    private readonly changes: ChangeNotifier,
    private readonly audit: AuditLog,
  ) {}

  async getProjectLimits(workspace: string, project: string): Promise<ProjectLimitsDto> {
    const { project: found } = await this.workspaces.requireProject(workspace, project);
    return this.describe(found.id);
  }

  async setProjectLimits(workspace: string, project: string, dto: SetProjectLimitsDto): Promise<ProjectLimitsDto> {
    const { project: found } = await this.workspaces.requireProject(workspace, project);
    await this.setForProject(found.id, { project: fromLimitValuesDto(dto.project), keys: fromLimitValuesDto(dto.keys) });
    return this.describe(found.id);
  }

  /** `parley apply` sets a project's limits in its own transaction; the admin API in one of its own. */
  async setForProject(projectId: string, values: { project: LimitValues; keys: LimitValues }, manager?: EntityManager): Promise<void> {
    await this.changing(projectId, manager, async (m) => {
      await this.save(projectId, PROJECT_SUBJECT, values.project, m);
      await this.save(projectId, KEY_DEFAULT_SUBJECT, values.keys, m);
    });
  }

  /**
   * Runs `write` in `manager`'s transaction (or a new one) with the change notification every
   * instance drops its cached settings on, delivered on commit (docs/scaling.md); this instance
   * forgets its own at once. After a caller's own transaction this instance may forget too early
   * and read the old row once more: the notification, delivered on commit, drops it again.
   */
  private async changing(projectId: string, manager: EntityManager | undefined, write: (m: EntityManager) => Promise<void>): Promise<void> {
    const run = async (m: EntityManager) => {
      await write(m);
      await this.changes.publish({ kind: 'limits', projectId }, m);
    };
    if (manager) await run(manager);
    else await this.dataSource.transaction(run);
    this.limits.forget(projectId);
  }

  /** The project's limits and its default for keys, for `parley export`. */
  async valuesOf(projectId: string): Promise<{ project: LimitValues | undefined; keys: LimitValues | undefined }> {
    const rows = await this.repo.settingsOf(projectId);
    const of = (subject: string) => rows.find((row) => row.subject === subject);
    const project = of(PROJECT_SUBJECT);
    const keys = of(KEY_DEFAULT_SUBJECT);
    return { project: project && toLimitValues(project), keys: keys && toLimitValues(keys) };
  }

  async setKeyLimits(workspace: string, project: string, keyId: string, dto: LimitValuesDto): Promise<ApiKeyLimitsDto> {
    const projectId = await this.requireKey(workspace, project, keyId);
    await this.changing(projectId, undefined, (m) => this.save(projectId, keyId, fromLimitValuesDto(dto), m));
    return this.describeKey(projectId, keyId);
  }

  async getKeyLimits(workspace: string, project: string, keyId: string): Promise<ApiKeyLimitsDto> {
    return this.describeKey(await this.requireKey(workspace, project, keyId), keyId);
  }

  /** The budgets and spend of the project and of each of its keys that is not revoked (docs/usage.md, "Budgets"). */
  async getProjectBudgets(workspace: string, project: string): Promise<ProjectBudgetsDto> {
    const { project: found } = await this.workspaces.requireProject(workspace, project);
    const keyIds = (await this.workspaces.listApiKeys(workspace, project)).filter((key) => key.revokedAt === null).map((key) => key.id);
    const state = await this.limits.budgetStateOf(found.id, keyIds);
    return {
      object: 'project.budgets',
      project: toBudgetStateDto(state.project),
      keys: keyIds.map((keyId, i) => ({ keyId, ...toBudgetStateDto(state.keys[i]) })),
    };
  }

  async getKeyBudget(workspace: string, project: string, keyId: string): Promise<ApiKeyBudgetDto> {
    const projectId = await this.requireKey(workspace, project, keyId);
    const state = await this.limits.budgetStateOf(projectId, [keyId]);
    return { object: 'api_key.budget', keyId, ...toBudgetStateDto(state.keys[0]) };
  }

  private async requireKey(workspace: string, project: string, keyId: string): Promise<string> {
    const { project: found } = await this.workspaces.requireProject(workspace, project);
    const keys = await this.workspaces.listApiKeys(workspace, project);
    if (!keys.some((key) => key.id === keyId && key.revokedAt === null)) throw notFound('API key not found');
    return found.id;
  }

  /** One subject's limits, with its audit event when they change (docs/security.md, "Audit trail"). */
  private async save(projectId: string, subject: string, values: LimitValues, manager: EntityManager): Promise<void> {
    const stored = await this.repo.settingOf(projectId, subject, manager);
    const before = stored ? { ...toLimitValues(stored) } : null;
    const after = hasAnyLimit(values) ? { ...(toLimitsDto(values) as unknown as Record<string, number | null>) } : null;
    if (after)
      await this.repo.saveSetting(
        Object.assign(new LimitSettingEntity(), { projectId, subject, ...values, updatedAt: new Date() }),
        manager,
      );
    else await this.repo.deleteSetting(projectId, subject, manager);
    if (JSON.stringify(before) !== JSON.stringify(after)) {
      await this.audit.record(manager, { projectId, action: 'limits.updated', resourceType: 'limits', resourceId: subject, before, after });
    }
  }

  private async describe(projectId: string): Promise<ProjectLimitsDto> {
    const rows = await this.repo.settingsOf(projectId);
    const bySubject = new Map(rows.map((row) => [row.subject, toLimitValues(row)]));
    return {
      object: 'project.limits',
      project: toLimitsDto(bySubject.get(PROJECT_SUBJECT)),
      keys: toLimitsDto(bySubject.get(KEY_DEFAULT_SUBJECT)),
      perKey: rows
        .filter((row) => row.subject !== PROJECT_SUBJECT && row.subject !== KEY_DEFAULT_SUBJECT)
        .map((row) => ({ keyId: row.subject, ...toLimitsDto(toLimitValues(row)) })),
    };
  }

  private async describeKey(projectId: string, keyId: string): Promise<ApiKeyLimitsDto> {
    const rows = await this.repo.settingsOf(projectId);
    const own = rows.find((row) => row.subject === keyId);
    const effective = await this.limits.limitsOf({ projectId, keyId });
    return { object: 'api_key.limits', keyId, limits: toLimitsDto(own && toLimitValues(own)), effective: toLimitsDto(effective.key) };
  }
}
