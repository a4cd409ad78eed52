import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { InstanceAuditLog } from '../audit/instance-audit-log';
import { ApiKeysService, KeyAccess } from '../auth/api-keys.service';
import { Principal, reachesWorkspace } from '../auth/principal';
import { Scope, scopesFor } from '../auth/scopes';
import { conflict, isUniqueViolation, notFound } from '../common/errors';
import { isUuid, newId } from '../common/ids';
import { isSlugLike } from '../common/validation';
import { CreateTransaction } from '../idempotency/create-transaction';
import { EnvironmentsService } from '../registry/environments/environments.service';
import { ApiKeyAccessDto, ApiKeyDto, ApiKeyListItemDto, ApiKeyRevokedDto, CreateApiKeyDto, CreatedApiKeyDto } from './dto/api-key.dto';
import { CreateProjectDto, CreateWorkspaceDto, ProjectDto, WorkspaceDto } from './dto/workspace.dto';
import { KeyActivityRepository } from './key-activity.repository';
import { assertInstanceAdmin, assertManages, assertOwnProject, assertWithinGrant } from './key-grants';
import { ProjectEntity } from './project.entity';
import { WorkspaceEntity } from './workspace.entity';
import { toApiKeyDto, toProjectDto, toWorkspaceDto } from './workspaces.mapper';
import { ProjectWithWorkspace, WorkspacesRepository } from './workspaces.repository';

/** Slugs that would shadow the service's own first path segments on the invoke route. */
const RESERVED_WORKSPACE_SLUGS = new Set(['v1', 'v2', 'docs', 'docs-json', 'health', 'ready', 'metrics', 'project-prompt']);

/** A preset and/or scopes as stored (null: every scope), and the environments (null: all). */
const accessOf = (dto: ApiKeyAccessDto): KeyAccess => ({
  scopes: scopesFor(dto.preset, dto.scopes),
  environments: dto.environments ?? null,
});

/** Workspaces, projects and their API keys: what the admin key manages. */
@Injectable()
export class WorkspacesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repo: WorkspacesRepository,
    private readonly keys: ApiKeysService,
    private readonly environments: EnvironmentsService,
    private readonly instanceAudit: InstanceAuditLog,
    private readonly activity: KeyActivityRepository,
  ) {}

  /** The workspace and its event on the instance's trail, in one transaction (the caller's, when given). */
  async createWorkspace(dto: CreateWorkspaceDto, manager?: EntityManager): Promise<WorkspaceDto> {
    if (RESERVED_WORKSPACE_SLUGS.has(dto.slug)) throw conflict(`Workspace slug "${dto.slug}" is reserved`);
    if (!manager) return this.dataSource.transaction((m) => this.createWorkspace(dto, m));
    const workspace = Object.assign(new WorkspaceEntity(), {
      id: newId(),
      slug: dto.slug,
      name: dto.name ?? dto.slug,
      createdAt: new Date(),
    });
    let created: WorkspaceEntity;
    try {
      created = await this.repo.insertWorkspace(workspace, manager);
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(`Workspace "${dto.slug}" already exists`);
      throw err;
    }
    // The new workspace's own event: its admins read it on their trail (docs/security.md, "Audit trail").
    await this.instanceAudit.record(manager, {
      workspaceId: created.id,
      action: 'workspace.created',
      resourceType: 'workspace',
      resourceId: created.slug,
      after: { id: created.id, slug: created.slug, name: created.name },
    });
    return toWorkspaceDto(created);
  }

  /** POST /v2/workspaces: the instance's admin key only. */
  createWorkspaceAs(caller: Principal, dto: CreateWorkspaceDto, tx: CreateTransaction): Promise<WorkspaceDto> {
    assertInstanceAdmin(caller);
    return tx.run((manager) => this.createWorkspace(dto, manager));
  }

  /** Every workspace for the instance's admin key; its own for a workspace admin key. */
  async listWorkspaces(caller: Principal): Promise<WorkspaceDto[]> {
    return (await this.repo.listWorkspaces()).filter((w) => reachesWorkspace(caller, w.id)).map(toWorkspaceDto);
  }

  /** The project, its event on the instance's trail and its default environments, in one transaction (the caller's, when given). */
  async createProject(workspaceSlug: string, dto: CreateProjectDto, manager?: EntityManager): Promise<ProjectDto> {
    if (!manager) return this.dataSource.transaction((m) => this.createProject(workspaceSlug, dto, m));
    const workspace = await this.findWorkspace(workspaceSlug, manager);
    if (!workspace) throw notFound('Workspace not found');
    const project = Object.assign(new ProjectEntity(), {
      id: newId(),
      workspaceId: workspace.id,
      slug: dto.slug,
      name: dto.name ?? dto.slug,
      createdAt: new Date(),
    });
    try {
      const created = await this.repo.insertProject(project, manager);
      await this.instanceAudit.record(manager, {
        workspaceId: workspace.id,
        action: 'project.created',
        resourceType: 'project',
        resourceId: `${workspace.slug}/${created.slug}`,
        after: { id: created.id, slug: created.slug, name: created.name },
      });
      await this.environments.seedDefaults(created.id, manager);
      return toProjectDto(created, workspace);
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(`Project "${dto.slug}" already exists in workspace "${workspaceSlug}"`);
      throw err;
    }
  }

  async listProjects(workspaceSlug: string): Promise<ProjectDto[]> {
    const workspace = await this.findWorkspace(workspaceSlug);
    if (!workspace) throw notFound('Workspace not found');
    return (await this.repo.listProjects(workspace.id)).map((p) => toProjectDto(p, workspace));
  }

  async createApiKey(
    workspaceSlug: string,
    projectSlug: string,
    dto: CreateApiKeyDto = {},
    manager?: EntityManager,
  ): Promise<CreatedApiKeyDto> {
    const { project, workspace } = await this.requireProject(workspaceSlug, projectSlug, manager);
    const issued = await this.keys.issue('project', project.id, dto.name ?? 'default', accessOf(dto), manager);
    return { ...toApiKeyDto(issued.entity), key: issued.secret, workspace: workspace.slug, project: project.slug };
  }

  /**
   * POST .../api-keys: a caller gives at most the scopes and environments it holds; a project key
   * reaches its own project only (docs/security.md, "Managing keys").
   */
  createApiKeyAs(
    caller: Principal,
    workspaceSlug: string,
    projectSlug: string,
    dto: CreateApiKeyDto,
    tx: CreateTransaction,
  ): Promise<CreatedApiKeyDto> {
    assertOwnProject(caller, workspaceSlug, projectSlug);
    assertWithinGrant(caller, scopesFor(dto.preset, dto.scopes), dto.environments ?? null);
    return tx.run((manager) => this.createApiKey(workspaceSlug, projectSlug, dto, manager));
  }

  /**
   * GET .../api-keys and `parley keys list`: each key with its spend, budgets and last use, in one
   * query (KeyActivityRepository). Without a caller: the operator (the CLI on the database).
   */
  async listKeysWithActivity(workspaceSlug: string, projectSlug: string, caller?: Principal): Promise<ApiKeyListItemDto[]> {
    if (caller) assertOwnProject(caller, workspaceSlug, projectSlug);
    const { project } = await this.requireProject(workspaceSlug, projectSlug);
    return this.activity.list(project.id);
  }

  /** Without a caller: the operator (the CLI on the database). */
  async listApiKeys(workspaceSlug: string, projectSlug: string, caller?: Principal): Promise<ApiKeyDto[]> {
    if (caller) assertOwnProject(caller, workspaceSlug, projectSlug);
    const { project } = await this.requireProject(workspaceSlug, projectSlug);
    return (await this.keys.listForProject(project.id)).map(toApiKeyDto);
  }

  /** Replaces a key's scopes and environments; the key's next request sees them (on every instance). */
  async setApiKeyAccess(
    caller: Principal,
    workspaceSlug: string,
    projectSlug: string,
    keyId: string,
    dto: ApiKeyAccessDto,
  ): Promise<ApiKeyDto> {
    assertOwnProject(caller, workspaceSlug, projectSlug);
    const { project } = await this.requireProject(workspaceSlug, projectSlug);
    const access = accessOf(dto);
    assertWithinGrant(caller, access.scopes ?? null, access.environments ?? null);
    const updated = isUuid(keyId) ? await this.keys.setAccess(project.id, keyId, access, (before) => assertManages(caller, before)) : null;
    if (!updated) throw notFound('API key not found');
    return toApiKeyDto(updated);
  }

  /** Without a caller: the operator (the CLI on the database). */
  async revokeApiKey(workspaceSlug: string, projectSlug: string, keyId: string, caller?: Principal): Promise<ApiKeyRevokedDto> {
    if (caller) assertOwnProject(caller, workspaceSlug, projectSlug);
    const { project } = await this.requireProject(workspaceSlug, projectSlug);
    const check = caller ? (before: { scopes: Scope[] | null; environments: string[] | null }) => assertManages(caller, before) : undefined;
    if (!isUuid(keyId) || !(await this.keys.revoke(project.id, keyId, check))) throw notFound('API key not found');
    return { id: keyId, object: 'api_key.revoked', revoked: true };
  }

  async requireProject(workspaceSlug: string, projectSlug: string, manager?: EntityManager): Promise<ProjectWithWorkspace> {
    const found = await this.findProject(workspaceSlug, projectSlug, manager);
    if (!found) throw notFound('Project not found');
    return found;
  }

  /** Slugs come from paths: one no workspace can have (a NUL byte, say) is not found without a query. */
  findWorkspace(slug: string, manager?: EntityManager): Promise<WorkspaceEntity | null> {
    return isSlugLike(slug) ? this.repo.findWorkspace(slug, manager) : Promise.resolve(null);
  }

  findProject(workspaceSlug: string, projectSlug: string, manager?: EntityManager): Promise<ProjectWithWorkspace | null> {
    if (!isSlugLike(workspaceSlug) || !isSlugLike(projectSlug)) return Promise.resolve(null);
    return this.repo.findProjectBySlugs(workspaceSlug, projectSlug, manager);
  }

  async isEmpty(manager?: EntityManager): Promise<boolean> {
    return (await this.repo.countWorkspaces(manager)) === 0;
  }

  /** Runs `work` in one transaction: multi-row set-up (init, apply) is all or nothing. */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }
}
