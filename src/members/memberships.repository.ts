import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { Role } from '../auth/roles';
import { newId } from '../common/ids';
import type { ManagedBy } from './dto/member.dto';

export interface MembershipRow {
  id: string;
  user_id: string;
  project_id: string | null;
  project_slug: string | null;
  role: Role;
  managed_by: ManagedBy;
}

/** A membership of the user in the workspace: the workspace-wide one (project null) or one project's. */
export interface MembershipPlace {
  userId: string;
  workspaceId: string;
  projectId: string | null;
}

const SELECT = `SELECT m.id, m.user_id, m.project_id, p.slug AS project_slug, m.role, m.managed_by
                  FROM memberships m LEFT JOIN projects p ON p.id = m.project_id`;

/** Direct roles (table `memberships`): every write in the caller's transaction. */
@Injectable()
export class MembershipsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The membership at this place, locked until the transaction ends. */
  async find(manager: EntityManager, place: MembershipPlace): Promise<MembershipRow | null> {
    const rows: MembershipRow[] = await manager.query(
      `${SELECT} WHERE m.user_id = $1 AND m.workspace_id = $2 AND m.project_id IS NOT DISTINCT FROM $3 FOR UPDATE OF m`,
      [place.userId, place.workspaceId, place.projectId],
    );
    return rows[0] ?? null;
  }

  async insert(manager: EntityManager, place: MembershipPlace, role: Role, managedBy: ManagedBy): Promise<void> {
    await manager.query(
      `INSERT INTO memberships (id, user_id, workspace_id, project_id, role, managed_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [newId(), place.userId, place.workspaceId, place.projectId, role, managedBy, new Date()],
    );
  }

  async update(manager: EntityManager, id: string, role: Role, managedBy: ManagedBy): Promise<void> {
    await manager.query('UPDATE memberships SET role = $2, managed_by = $3 WHERE id = $1', [id, role, managedBy]);
  }

  async delete(manager: EntityManager, id: string): Promise<void> {
    await manager.query('DELETE FROM memberships WHERE id = $1', [id]);
  }

  /** Every membership of the user in the workspace, the workspace-wide one first; locked. */
  allInWorkspace(manager: EntityManager, userId: string, workspaceId: string): Promise<MembershipRow[]> {
    return manager.query(`${SELECT} WHERE m.user_id = $1 AND m.workspace_id = $2 ORDER BY m.project_id NULLS FIRST, m.id FOR UPDATE OF m`, [
      userId,
      workspaceId,
    ]);
  }

  /** Active users other than this one holding a direct workspace-wide admin role there. */
  async otherWorkspaceAdmins(manager: EntityManager, workspaceId: string, userId: string): Promise<number> {
    const rows: { n: number }[] = await manager.query(
      `SELECT count(*)::int AS n FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.workspace_id = $1 AND m.project_id IS NULL AND m.role = 'admin' AND m.user_id <> $2 AND u.active
          AND NOT EXISTS (SELECT 1 FROM scim_users s WHERE s.workspace_id = $1 AND s.user_id = m.user_id AND NOT s.active)`,
      [workspaceId, userId],
    );
    return rows[0].n;
  }

  /** The project's own memberships (not the workspace-wide ones), with each user's address: what parley.yaml's `access.members` compares with. */
  ofProject(manager: EntityManager, projectId: string, lock = false): Promise<(MembershipRow & { email: string })[]> {
    return manager.query(
      `SELECT m.id, m.user_id, m.project_id, p.slug AS project_slug, m.role, m.managed_by, u.email
         FROM memberships m JOIN projects p ON p.id = m.project_id JOIN users u ON u.id = m.user_id
        WHERE m.project_id = $1 ORDER BY lower(u.email)${lock ? ' FOR UPDATE OF m' : ''}`,
      [projectId],
    );
  }

  /** Serializes changes to a workspace's members, so the last-admin rule holds under concurrent changes. */
  async lockWorkspace(manager: EntityManager, workspaceId: string): Promise<void> {
    await manager.query('SELECT id FROM workspaces WHERE id = $1 FOR UPDATE', [workspaceId]);
  }

  /** For reads outside a transaction. */
  get manager(): EntityManager {
    return this.dataSource.manager;
  }
}
