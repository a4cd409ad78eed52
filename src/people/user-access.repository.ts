import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { isRole, RoleGrant, UserAccess } from '../auth/roles';

interface UserRow {
  id: string;
  email: string;
  name: string | null;
  instance_admin: boolean;
  active: boolean;
}

interface GrantRow {
  workspace_id: string;
  workspace_slug: string;
  project_id: string | null;
  project_slug: string | null;
  role: string;
}

/**
 * The grant rules, written once for accessOf and withoutAnyRole (`user`: the SQL naming the user's
 * id). A workspace whose directory deactivated the user gives them nothing.
 */
const suspendedIn = (workspace: string, user: string) =>
  `EXISTS (SELECT 1 FROM scim_users s WHERE s.workspace_id = ${workspace} AND s.user_id = ${user} AND NOT s.active)`;

/** The user is in group role `g`'s group: their last groups claim (exact name) or a SCIM group of its workspace (any case). */
const inGroupOf = (g: string, user: string) =>
  `(${g}.group_name IN (SELECT c.name FROM user_claim_groups c WHERE c.user_id = ${user})
    OR EXISTS (SELECT 1 FROM scim_group_members sm JOIN scim_groups sg ON sg.id = sm.group_id
                WHERE sm.user_id = ${user} AND sg.workspace_id = ${g}.workspace_id
                  AND lower(sg.display_name) = lower(${g}.group_name)))`;

/**
 * A person's roles, read on every request of their session (docs/security.md, "Roles"): direct
 * memberships, and group roles whose group is in their last sign-in's groups claim (by exact name)
 * or is a SCIM group of that workspace they belong to (displayName, any case). A workspace whose
 * directory deactivated them (scim_users.active false) gives them nothing. Not cached, so a
 * removal or deactivation ends their access at once on every replica.
 */
@Injectable()
export class UserAccessRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Null when the user does not exist or is inactive. */
  async accessOf(userId: string): Promise<UserAccess | null> {
    const [users, grants]: [UserRow[], GrantRow[]] = await Promise.all([
      this.dataSource.query('SELECT id, email, name, instance_admin, active FROM users WHERE id = $1', [userId]),
      this.dataSource.query(
        `SELECT m.workspace_id, w.slug AS workspace_slug, m.project_id, p.slug AS project_slug, m.role
           FROM memberships m
           JOIN workspaces w ON w.id = m.workspace_id
           LEFT JOIN projects p ON p.id = m.project_id
          WHERE m.user_id = $1 AND NOT ${suspendedIn('m.workspace_id', '$1')}
         UNION ALL
         SELECT g.workspace_id, w.slug, g.project_id, p.slug, g.role
           FROM group_roles g
           JOIN workspaces w ON w.id = g.workspace_id
           LEFT JOIN projects p ON p.id = g.project_id
          WHERE ${inGroupOf('g', '$1')} AND NOT ${suspendedIn('g.workspace_id', '$1')}`,
        [userId],
      ),
    ]);
    const user = users[0];
    if (!user || !user.active) return null;
    return {
      user: { id: user.id, email: user.email, name: user.name },
      instanceAdmin: user.instance_admin,
      grants: grants.filter((row) => isRole(row.role)).map(toGrant),
    };
  }

  /**
   * Of `userIds`, those accessOf would refuse: gone, inactive, or neither an instance admin nor
   * holding any role (the same rules, in one query for them all). With `manager`, as that
   * transaction sees it.
   */
  async withoutAnyRole(userIds: Iterable<string>, manager: EntityManager = this.dataSource.manager): Promise<string[]> {
    const ids = [...new Set(userIds)];
    if (ids.length === 0) return [];
    const rows: { id: string }[] = await manager.query(
      `SELECT t.id FROM unnest($1::uuid[]) AS t(id)
        WHERE NOT EXISTS (
          SELECT 1 FROM users u WHERE u.id = t.id AND u.active AND (
            u.instance_admin
            OR EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = u.id AND NOT ${suspendedIn('m.workspace_id', 'u.id')})
            OR EXISTS (SELECT 1 FROM group_roles g WHERE ${inGroupOf('g', 'u.id')} AND NOT ${suspendedIn('g.workspace_id', 'u.id')})))`,
      [ids],
    );
    return rows.map((row) => row.id);
  }

  /** Everyone a group role named `group` in this workspace reaches: by their last groups claim (exact name) or a SCIM group (any case). */
  async groupPeople(workspaceId: string, group: string, manager: EntityManager = this.dataSource.manager): Promise<string[]> {
    const rows: { user_id: string }[] = await manager.query(
      `SELECT c.user_id FROM user_claim_groups c WHERE c.name = $2
       UNION
       SELECT sm.user_id FROM scim_group_members sm JOIN scim_groups sg ON sg.id = sm.group_id
        WHERE sg.workspace_id = $1 AND lower(sg.display_name) = lower($2)`,
      [workspaceId, group],
    );
    return rows.map((row) => row.user_id);
  }
}

const toGrant = (row: GrantRow): RoleGrant => ({
  workspaceId: row.workspace_id,
  workspaceSlug: row.workspace_slug,
  projectId: row.project_id,
  projectSlug: row.project_slug,
  role: row.role as RoleGrant['role'],
});
