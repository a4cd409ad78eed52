import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { Role } from '../auth/roles';
import { newId } from '../common/ids';
import type { ManagedBy } from './dto/member.dto';

export interface GroupRoleRow {
  id: string;
  group_name: string;
  project_id: string | null;
  project_slug: string | null;
  role: Role;
  managed_by: ManagedBy;
  created_at: Date;
}

/** A group's role in the workspace (project null) or one project. */
export interface GroupRolePlace {
  workspaceId: string;
  projectId: string | null;
  group: string;
}

const SELECT = `SELECT g.id, g.group_name, g.project_id, p.slug AS project_slug, g.role, g.managed_by, g.created_at
                  FROM group_roles g LEFT JOIN projects p ON p.id = g.project_id`;

/**
 * Roles given to everyone in a group (table `group_roles`): the group is named as the identity
 * provider names it, the groups claim's value exactly or a SCIM group's displayName in any case.
 */
@Injectable()
export class GroupRolesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A workspace's group roles, by group, the workspace-wide one before the projects'. */
  list(workspaceId: string): Promise<GroupRoleRow[]> {
    return this.dataSource.query(`${SELECT} WHERE g.workspace_id = $1 ORDER BY g.group_name, p.slug NULLS FIRST`, [workspaceId]);
  }

  async find(manager: EntityManager, place: GroupRolePlace): Promise<GroupRoleRow | null> {
    const rows: GroupRoleRow[] = await manager.query(
      `${SELECT} WHERE g.workspace_id = $1 AND g.project_id IS NOT DISTINCT FROM $2 AND g.group_name = $3 FOR UPDATE OF g`,
      [place.workspaceId, place.projectId, place.group],
    );
    return rows[0] ?? null;
  }

  async insert(manager: EntityManager, place: GroupRolePlace, role: Role, managedBy: ManagedBy): Promise<void> {
    await manager.query(
      'INSERT INTO group_roles (id, workspace_id, project_id, group_name, role, managed_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [newId(), place.workspaceId, place.projectId, place.group, role, managedBy, new Date()],
    );
  }

  async update(manager: EntityManager, id: string, role: Role, managedBy: ManagedBy): Promise<void> {
    await manager.query('UPDATE group_roles SET role = $2, managed_by = $3 WHERE id = $1', [id, role, managedBy]);
  }

  async delete(manager: EntityManager, id: string): Promise<void> {
    await manager.query('DELETE FROM group_roles WHERE id = $1', [id]);
  }

  /** The project's own group roles: what parley.yaml's `access.groups` compares with. */
  ofProject(manager: EntityManager, projectId: string, lock = false): Promise<GroupRoleRow[]> {
    return manager.query(`${SELECT} WHERE g.project_id = $1 ORDER BY g.group_name${lock ? ' FOR UPDATE OF g' : ''}`, [projectId]);
  }
}
