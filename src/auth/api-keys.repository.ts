import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';

import { ApiKeyEntity } from './api-key.entity';
import type { Scope } from './scopes';

export interface ActiveKeyRow {
  id: string;
  project_id: string | null;
  project_slug: string | null;
  workspace_id: string | null;
  workspace_slug: string | null;
  name: string;
  scopes: Scope[] | null;
  environments: string[] | null;
}

export interface ProjectRef {
  project_id: string;
  project_slug: string;
  workspace_id: string;
  workspace_slug: string;
}

@Injectable()
export class ApiKeysRepository {
  constructor(@InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>) {}

  /** One indexed lookup by hash, with the project and workspace slugs the invoke path checks. */
  findActiveByHash(hash: string): Promise<ActiveKeyRow | null> {
    return this.findActive('k.key_hash = $1', hash);
  }

  /** The same, by the key's id (a console session names its key by id). */
  findActiveById(id: string): Promise<ActiveKeyRow | null> {
    return this.findActive('k.id = $1', id);
  }

  private async findActive(condition: string, value: string): Promise<ActiveKeyRow | null> {
    const rows: ActiveKeyRow[] = await this.keys.query(
      `SELECT k.id, k.name, k.project_id, k.scopes, k.environments, p.slug AS project_slug, w.id AS workspace_id, w.slug AS workspace_slug
         FROM api_keys k
         LEFT JOIN projects p ON p.id = k.project_id
         LEFT JOIN workspaces w ON w.id = COALESCE(p.workspace_id, k.workspace_id)
        WHERE ${condition} AND k.revoked_at IS NULL`,
      [value],
    );
    return rows[0] ?? null;
  }

  /** A project and its workspace by their slugs: one indexed lookup (the X-Parley-Project header of an admin key). */
  async findProject(workspaceSlug: string, projectSlug: string): Promise<ProjectRef | null> {
    const rows: ProjectRef[] = await this.keys.query(
      `SELECT p.id AS project_id, p.slug AS project_slug, w.id AS workspace_id, w.slug AS workspace_slug
         FROM projects p JOIN workspaces w ON w.id = p.workspace_id
        WHERE w.slug = $1 AND p.slug = $2`,
      [workspaceSlug, projectSlug],
    );
    return rows[0] ?? null;
  }

  insert(key: ApiKeyEntity, manager?: EntityManager): Promise<ApiKeyEntity> {
    return (manager ? manager.getRepository(ApiKeyEntity) : this.keys).save(key);
  }

  listForProject(projectId: string): Promise<ApiKeyEntity[]> {
    return this.keys.find({ where: { projectId }, order: { id: 'ASC' } });
  }

  /** A workspace's admin keys (no project), revoked ones included, oldest first. */
  listForWorkspace(workspaceId: string): Promise<ApiKeyEntity[]> {
    return this.keys.find({ where: { workspaceId, projectId: IsNull() }, order: { id: 'ASC' } });
  }

  async revokeInWorkspace(workspaceId: string, id: string, at: Date, manager: EntityManager): Promise<boolean> {
    const result = await manager
      .getRepository(ApiKeyEntity)
      .update({ workspaceId, projectId: IsNull(), id, revokedAt: IsNull() }, { revokedAt: at });
    return (result.affected ?? 0) > 0;
  }

  findWorkspaceAdmin(workspaceId: string, id: string, manager: EntityManager): Promise<ApiKeyEntity | null> {
    return manager.getRepository(ApiKeyEntity).findOne({ where: { workspaceId, projectId: IsNull(), id } });
  }

  findInProject(projectId: string, id: string, manager?: EntityManager): Promise<ApiKeyEntity | null> {
    return (manager ? manager.getRepository(ApiKeyEntity) : this.keys).findOne({ where: { projectId, id } });
  }

  async revoke(projectId: string, id: string, at: Date, manager?: EntityManager): Promise<boolean> {
    const result = await (manager ? manager.getRepository(ApiKeyEntity) : this.keys).update(
      { projectId, id, revokedAt: IsNull() },
      { revokedAt: at },
    );
    return (result.affected ?? 0) > 0;
  }

  /** The live key with its new scopes and environments, or null. */
  async setAccess(
    projectId: string,
    id: string,
    access: Pick<ApiKeyEntity, 'scopes' | 'environments'>,
    manager: EntityManager,
  ): Promise<ApiKeyEntity | null> {
    const repo = manager.getRepository(ApiKeyEntity);
    const result = await repo.update({ projectId, id, revokedAt: IsNull() }, access);
    return (result.affected ?? 0) > 0 ? repo.findOne({ where: { projectId, id } }) : null;
  }

  async countAdminKeys(): Promise<number> {
    return this.keys.count({ where: { projectId: IsNull(), workspaceId: IsNull(), revokedAt: IsNull() } });
  }
}
