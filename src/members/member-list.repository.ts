import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { Role } from '../auth/roles';
import type { ManagedBy, RoleSource } from './dto/member.dto';

export interface MemberUserRow {
  id: string;
  email: string;
  name: string | null;
  /** users.active, and not suspended by this workspace's directory. */
  active: boolean;
  last_sign_in_at: Date | null;
}

export interface MemberGrantRow {
  user_id: string;
  project_id: string | null;
  project_slug: string | null;
  role: Role;
  source: RoleSource;
  group_name: string | null;
  managed_by: ManagedBy;
}

/**
 * Which roles apply: in the whole workspace ($2 null), or in one project ($2), where the
 * workspace-wide roles apply too. $1 the workspace.
 */
const APPLIES = (alias: string) =>
  `${alias}.workspace_id = $1 AND ($2::uuid IS NULL OR ${alias}.project_id IS NULL OR ${alias}.project_id = $2)`;

/** The users a group role reaches: by the groups claim of their last sign-in (exact name), or a SCIM group of the workspace (any case). */
const GROUP_MEMBERS = `
  SELECT c.user_id, g.id AS group_role_id FROM group_roles g JOIN user_claim_groups c ON c.name = g.group_name WHERE ${APPLIES('g')}
  UNION
  SELECT sm.user_id, g.id FROM group_roles g
    JOIN scim_groups sg ON sg.workspace_id = g.workspace_id AND lower(sg.display_name) = lower(g.group_name)
    JOIN scim_group_members sm ON sm.group_id = sg.id
   WHERE ${APPLIES('g')}`;

/**
 * The members lists (docs/security.md, "Roles"): everyone holding a role in a workspace or a
 * project, directly or through a group, in user id order (keyset pages), with each role they hold there.
 */
@Injectable()
export class MemberListRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** `limit + 1` users after `after`, for the page's has_more; `only` restricts to one user. */
  users(
    workspaceId: string,
    projectId: string | null,
    page: { after: string | null; limit: number; only?: string },
    manager: EntityManager = this.dataSource.manager,
  ): Promise<MemberUserRow[]> {
    return manager.query(
      `WITH holders AS (
         SELECT m.user_id FROM memberships m WHERE ${APPLIES('m')}
         UNION
         SELECT user_id FROM (${GROUP_MEMBERS}) AS grouped
       )
       SELECT u.id, u.email, u.name, u.last_sign_in_at,
              u.active AND NOT EXISTS (SELECT 1 FROM scim_users s WHERE s.workspace_id = $1 AND s.user_id = u.id AND NOT s.active) AS active
         FROM holders h JOIN users u ON u.id = h.user_id
        WHERE ($3::uuid IS NULL OR u.id > $3) AND ($5::uuid IS NULL OR u.id = $5)
        ORDER BY u.id
        LIMIT $4`,
      [workspaceId, projectId, page.after, page.limit + 1, page.only ?? null],
    );
  }

  /** Every role the users hold there: memberships, then group roles, each with its project. */
  grants(workspaceId: string, projectId: string | null, userIds: string[], manager = this.dataSource.manager): Promise<MemberGrantRow[]> {
    if (userIds.length === 0) return Promise.resolve([]);
    return manager.query(
      `SELECT m.user_id, m.project_id, p.slug AS project_slug, m.role, 'direct' AS source, NULL AS group_name, m.managed_by
         FROM memberships m LEFT JOIN projects p ON p.id = m.project_id
        WHERE ${APPLIES('m')} AND m.user_id = ANY($3::uuid[])
       UNION ALL
       SELECT grouped.user_id, g.project_id, p.slug, g.role, 'group', g.group_name, g.managed_by
         FROM (${GROUP_MEMBERS}) AS grouped
         JOIN group_roles g ON g.id = grouped.group_role_id
         LEFT JOIN projects p ON p.id = g.project_id
        WHERE grouped.user_id = ANY($3::uuid[])
       ORDER BY 1, 5, 3 NULLS FIRST, 6 NULLS FIRST`,
      [workspaceId, projectId, userIds],
    );
  }
}
