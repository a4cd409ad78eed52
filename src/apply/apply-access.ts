import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { Role } from '../auth/roles';
import { grants, Scope } from '../auth/scopes';
import { forbidden } from '../common/errors';
import { ConsoleSessionsRepository } from '../console/console-sessions.repository';
import { GroupRolesRepository } from '../members/group-roles.repository';
import { assertMayGive } from '../members/member-rules';
import { MemberPlace, MemberWrites } from '../members/member-writes';
import { MembershipsRepository } from '../members/memberships.repository';
import { UserAccessRepository } from '../people/user-access.repository';
import type { DeclaredAccess } from './apply-file.schema';
import type { AccessSummary } from './apply-summary';

/**
 * A file's `access` is members:manage's, as on the members API; and it gives no role holding a
 * scope the caller does not hold (docs/apply.md, "Access"). Absent scopes: the operator (the CLI
 * on the database), who may do anything.
 */
export function assertMayApplyAccess(
  scopes: readonly Scope[] | null | undefined,
  access: DeclaredAccess,
  environments: readonly string[] | null = null,
): void {
  if (scopes === undefined) return;
  if (!grants(scopes, ['members:manage'])) throw forbidden('Access in parley.yaml needs an API key with the members:manage scope');
  for (const role of new Set([...Object.values(access.groups), ...Object.values(access.members)])) {
    assertMayGive({ scopes, environments }, role);
  }
}

/**
 * parley.yaml's `access:` block (docs/apply.md, "Access"), in apply's transaction: the project's
 * group roles and memberships that apply owns become exactly the file's. A listed group or person
 * that already had a role here through the API is taken over by the file; the file's rows that it
 * no longer lists are removed; rows the API made and the file does not list stay. Each change is in
 * the instance's audit trail. A person a removal left with no role anywhere loses every console
 * session in the same transaction (docs/security.md, "Roles"), so giving the role back later does
 * not bring an old session back.
 */
@Injectable()
export class ApplyAccess {
  constructor(
    private readonly dataSource: DataSource,
    private readonly writes: MemberWrites,
    private readonly memberships: MembershipsRepository,
    private readonly groupRoles: GroupRolesRepository,
    private readonly people: UserAccessRepository,
    private readonly sessions: ConsoleSessionsRepository,
  ) {}

  async apply(manager: EntityManager, projectId: string, access: DeclaredAccess, scopes?: readonly Scope[] | null): Promise<AccessSummary> {
    const place = await this.placeOf(manager, projectId);
    await this.writes.lockWorkspace(manager, place.workspace.id);
    // Nor does it change or remove a role holding more than the caller.
    const mayChange = (role: Role) => scopes === undefined || assertMayGive({ scopes }, role);
    const summary: AccessSummary = { groups: [], members: [] };
    const lost: string[] = [];

    const groups = await this.groupRoles.ofProject(manager, projectId, true);
    for (const [group, role] of sortedEntries(access.groups)) {
      const held = groups.find((row) => row.group_name === group);
      if (held) mayChange(held.role);
      summary.groups.push({ group, role, action: await this.writes.setGroupRole(manager, place, group, role, 'apply') });
    }
    for (const row of groups.filter((g) => g.managed_by === 'apply' && access.groups[g.group_name] === undefined)) {
      mayChange(row.role);
      await this.writes.removeGroupRole(manager, place.workspace.id, row);
      lost.push(...(await this.people.groupPeople(place.workspace.id, row.group_name, manager)));
      summary.groups.push({ group: row.group_name, role: row.role, action: 'removed' });
    }

    const members = await this.memberships.ofProject(manager, projectId, true);
    const listed = new Set(Object.keys(access.members).map((email) => email.toLowerCase()));
    for (const [email, role] of sortedEntries(access.members)) {
      const held = members.find((row) => row.email.toLowerCase() === email.toLowerCase());
      if (held) mayChange(held.role);
      const user = await this.writes.userByEmail(manager, place.workspace.id, email);
      summary.members.push({ email, role, action: await this.writes.setMembership(manager, place, user, role, 'apply') });
    }
    for (const row of members.filter((m) => m.managed_by === 'apply' && !listed.has(m.email.toLowerCase()))) {
      mayChange(row.role);
      await this.writes.removeMembership(manager, place.workspace.id, row, row.email);
      lost.push(row.user_id);
      summary.members.push({ email: row.email, role: row.role, action: 'removed' });
    }
    await this.sessions.revokeAllOfUsers(await this.people.withoutAnyRole(lost, manager), new Date(), manager);
    return summary;
  }

  /**
   * `parley export`'s `access`: the roles apply owns in this project, so applying the file back
   * changes nothing; roles given through the API or the console are counted in a note instead.
   */
  async section(projectId: string, notes: string[]): Promise<Record<string, Record<string, Role>> | undefined> {
    const manager = this.dataSource.manager;
    const groups = await this.groupRoles.ofProject(manager, projectId);
    const members = await this.memberships.ofProject(manager, projectId);
    const byApi = [...groups, ...members].filter((row) => row.managed_by === 'api').length;
    if (byApi > 0) {
      notes.push(
        `access: ${byApi} role${byApi === 1 ? '' : 's'} in this project ${byApi === 1 ? 'was' : 'were'} given through the API or the console, so not part of this file`,
      );
    }
    const ownGroups = groups.filter((row) => row.managed_by === 'apply');
    const ownMembers = members.filter((row) => row.managed_by === 'apply');
    if (ownGroups.length === 0 && ownMembers.length === 0) return undefined;
    return {
      ...(ownGroups.length > 0 ? { groups: Object.fromEntries(ownGroups.map((row) => [row.group_name, row.role])) } : {}),
      ...(ownMembers.length > 0 ? { members: Object.fromEntries(ownMembers.map((row) => [row.email, row.role])) } : {}),
    };
  }

  private async placeOf(manager: EntityManager, projectId: string): Promise<MemberPlace> {
    const [row]: { id: string; slug: string; workspace_id: string; workspace_slug: string }[] = await manager.query(
      'SELECT p.id, p.slug, w.id AS workspace_id, w.slug AS workspace_slug FROM projects p JOIN workspaces w ON w.id = p.workspace_id WHERE p.id = $1',
      [projectId],
    );
    return { workspace: { id: row.workspace_id, slug: row.workspace_slug }, project: { id: row.id, slug: row.slug } };
  }
}

const sortedEntries = (record: Record<string, Role>): [string, Role][] => Object.entries(record).sort(([a], [b]) => a.localeCompare(b));
