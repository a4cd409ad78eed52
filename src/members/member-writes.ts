import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

import { InstanceAuditLog } from '../audit/instance-audit-log';
import { Role } from '../auth/roles';
import type { ManagedBy } from './dto/member.dto';
import { GroupRoleRow, GroupRolesRepository } from './group-roles.repository';
import { MembershipRow, MembershipsRepository } from './memberships.repository';
import { UserRow, UsersRepository } from './users.repository';

/** A workspace, or one of its projects. */
export interface MemberPlace {
  workspace: { id: string; slug: string };
  project: { id: string; slug: string } | null;
}

export type WriteAction = 'created' | 'updated' | 'unchanged';

/**
 * Every change to memberships and group roles, by the members API and by parley.yaml's `access:`
 * block alike: in the caller's transaction, each with its row in the instance's audit trail
 * (docs/security.md, "Audit trail"), so both commit or neither. Callers lock the workspace first
 * (`lockWorkspace`): its member changes run one at a time.
 */
@Injectable()
export class MemberWrites {
  constructor(
    private readonly users: UsersRepository,
    private readonly memberships: MembershipsRepository,
    private readonly groupRoles: GroupRolesRepository,
    private readonly audit: InstanceAuditLog,
  ) {}

  lockWorkspace(manager: EntityManager, workspaceId: string): Promise<void> {
    return this.memberships.lockWorkspace(manager, workspaceId);
  }

  /** The user with this address, made now if they have not signed in yet (audited as `user.created`). */
  async userByEmail(manager: EntityManager, workspaceId: string | null, email: string): Promise<UserRow> {
    const { user, created } = await this.users.findOrCreateByEmail(manager, email);
    if (created) {
      await this.audit.record(manager, {
        workspaceId,
        action: 'user.created',
        resourceType: 'user',
        resourceId: user.id,
        after: { email: user.email },
      });
    }
    return user;
  }

  /**
   * Gives `user` this role here. A change of role takes the row over for `managedBy` (the API's or
   * parley.yaml's); the same role again leaves it as it is, except that a file listing a row the
   * API made takes it over (docs/apply.md, "Access": the file owns what it lists).
   */
  async setMembership(manager: EntityManager, place: MemberPlace, user: UserRow, role: Role, managedBy: ManagedBy): Promise<WriteAction> {
    const at = { userId: user.id, workspaceId: place.workspace.id, projectId: place.project?.id ?? null };
    const row = await this.memberships.find(manager, at);
    if (row && row.role === role && (row.managed_by === managedBy || managedBy === 'api')) return 'unchanged';
    const after = { user: user.email, project: place.project?.slug ?? null, role, managedBy };
    if (!row) await this.memberships.insert(manager, at, role, managedBy);
    else await this.memberships.update(manager, row.id, role, managedBy);
    // A row only taken over by the file (same role) changes nobody's access: not an event.
    if (row && row.role === role) return 'unchanged';
    await this.audit.record(manager, {
      workspaceId: place.workspace.id,
      action: row ? 'member.role_changed' : 'member.added',
      resourceType: 'member',
      resourceId: user.id,
      before: row ? { ...after, role: row.role, managedBy: row.managed_by } : null,
      after,
    });
    return row ? 'updated' : 'created';
  }

  async removeMembership(manager: EntityManager, workspaceId: string, row: MembershipRow, email: string): Promise<void> {
    await this.memberships.delete(manager, row.id);
    await this.audit.record(manager, {
      workspaceId,
      action: 'member.removed',
      resourceType: 'member',
      resourceId: row.user_id,
      before: { user: email, project: row.project_slug, role: row.role, managedBy: row.managed_by },
    });
  }

  /** Gives everyone in `group` this role here. */
  async setGroupRole(manager: EntityManager, place: MemberPlace, group: string, role: Role, managedBy: ManagedBy): Promise<WriteAction> {
    const at = { workspaceId: place.workspace.id, projectId: place.project?.id ?? null, group };
    const row = await this.groupRoles.find(manager, at);
    if (row && row.role === role && (row.managed_by === managedBy || managedBy === 'api')) return 'unchanged';
    if (!row) await this.groupRoles.insert(manager, at, role, managedBy);
    else await this.groupRoles.update(manager, row.id, role, managedBy);
    if (row && row.role === role) return 'unchanged';
    const after = { group, project: place.project?.slug ?? null, role, managedBy };
    await this.audit.record(manager, {
      workspaceId: place.workspace.id,
      action: 'group_role.set',
      resourceType: 'group_role',
      resourceId: group,
      before: row ? { ...after, role: row.role, managedBy: row.managed_by } : null,
      after,
    });
    return row ? 'updated' : 'created';
  }

  async removeGroupRole(manager: EntityManager, workspaceId: string, row: GroupRoleRow): Promise<void> {
    await this.groupRoles.delete(manager, row.id);
    await this.audit.record(manager, {
      workspaceId,
      action: 'group_role.removed',
      resourceType: 'group_role',
      resourceId: row.group_name,
      before: { group: row.group_name, project: row.project_slug, role: row.role, managedBy: row.managed_by },
    });
  }
}
