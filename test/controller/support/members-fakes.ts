import { randomUUID } from 'node:crypto';

import type { AdminPrincipal, Principal } from '../../../src/auth/principal';
import { SCOPE_PRESETS } from '../../../src/auth/scopes';
import { conflict, notFound } from '../../../src/common/errors';
import type { GroupRoleDto, MemberDto, PutGroupRoleDto, PutMemberDto } from '../../../src/members/dto/member.dto';
import type { UserDto } from '../../../src/members/dto/user.dto';
import type { GroupRolesService } from '../../../src/members/group-roles.service';
import type { InstanceAdminsService } from '../../../src/members/instance-admins.service';
import {
  assertGroupName,
  assertMayGive,
  assertOwnProject,
  LAST_INSTANCE_ADMIN,
  lastAdminMessage,
  MEMBER_ERRORS,
  userRefOf,
} from '../../../src/members/member-rules';
import type { MembersService } from '../../../src/members/members.service';
import { Failing, FakeApiKeys, projectPrincipal, WORKSPACE } from './fakes';

/** Keys beyond FakeApiKeys' four: the workspace's admin key, and project keys with and without members:manage's company. */
export const MEMBER_KEYS = {
  /** `acme`'s workspace admin key (every scope). */
  workspaceAdmin: 'ck-controller-ws-admin-0123456',
  /** A project key of acme/support-bot with members:manage and the viewer preset. */
  memberManager: 'ck-controller-members-012345',
} as const;

export class MemberApiKeys extends FakeApiKeys {
  private readonly extra = new Map<string, Principal>([
    [
      MEMBER_KEYS.workspaceAdmin,
      {
        kind: 'admin',
        keyId: randomUUID(),
        keyName: 'acme admin',
        scopes: null,
        environments: null,
        workspaceId: '01990000-0000-7000-8000-00000000b001',
        workspaceSlug: WORKSPACE,
      } satisfies AdminPrincipal,
    ],
    [MEMBER_KEYS.memberManager, projectPrincipal(['members:manage', ...SCOPE_PRESETS.viewer])],
  ]);

  override async resolve(secret: string): Promise<Principal | null> {
    return this.extra.get(secret) ?? super.resolve(secret);
  }
}

/** Users the fakes know: `known@example.com` is a member, `solo@example.com` the workspace's only admin. */
export const KNOWN_USER = { id: '01990000-0000-7000-8000-00000000c001', email: 'known@example.com' };
export const SOLO = 'solo@example.com';

const member = (id: string, email: string, role: MemberDto['role']): MemberDto => ({
  object: 'member',
  id,
  user: { id, email, name: null },
  role,
  projects: [],
  source: 'direct',
  grants: role ? [{ project: null, role, source: 'direct', group: null, managedBy: 'api' }] : [],
  active: true,
  lastSignInAt: null,
});

/**
 * The members services in memory, over the real rules of src/members/member-rules.ts (the user in
 * a path, a group's name, the role ceiling, a project key's own project) and their messages; the
 * real conditions against a database are test/members.e2e-spec.ts's.
 */
export class FakeMembers extends Failing implements Pick<MembersService, 'members' | 'put' | 'remove'> {
  private place(caller: Principal, workspace: string, project: string | undefined): void {
    if (project !== undefined) assertOwnProject(caller, workspace, project);
    if (workspace !== WORKSPACE) throw notFound(MEMBER_ERRORS.workspaceNotFound);
    if (project !== undefined && project !== 'support-bot') throw notFound(MEMBER_ERRORS.projectNotFound);
  }

  async members(caller: Principal, workspace: string, project: string | undefined) {
    this.called('members');
    this.place(caller, workspace, project);
    return {
      object: 'list' as const,
      data: [member(KNOWN_USER.id, KNOWN_USER.email, 'viewer')],
      has_more: false,
      first_id: KNOWN_USER.id,
      last_id: KNOWN_USER.id,
    };
  }

  async put(caller: Principal, workspace: string, project: string | undefined, user: string, dto: PutMemberDto) {
    this.called('put');
    const ref = userRefOf(user);
    assertMayGive(caller, dto.role);
    this.place(caller, workspace, project);
    if (ref.id !== undefined && ref.id !== KNOWN_USER.id) throw notFound(MEMBER_ERRORS.userNotFound);
    if (ref.email?.toLowerCase() === SOLO && dto.role !== 'admin') throw conflict(lastAdminMessage(workspace));
    return member(ref.id ?? randomUUID(), ref.email ?? KNOWN_USER.email, project ? null : dto.role);
  }

  async remove(caller: Principal, workspace: string, project: string | undefined, user: string) {
    this.called('remove');
    const ref = userRefOf(user);
    this.place(caller, workspace, project);
    if (ref.email?.toLowerCase() === SOLO) throw conflict(lastAdminMessage(workspace));
    if (ref.id !== KNOWN_USER.id && ref.email?.toLowerCase() !== KNOWN_USER.email) throw notFound(MEMBER_ERRORS.memberNotFound);
    return { id: KNOWN_USER.id, object: 'member.removed' as const, removed: 1, sessionsEnded: 0 };
  }
}

export class FakeGroupRoles extends Failing implements Pick<GroupRolesService, 'list' | 'put' | 'remove'> {
  async list(_caller: Principal, workspace: string) {
    this.called('list');
    if (workspace !== WORKSPACE) throw notFound(MEMBER_ERRORS.workspaceNotFound);
    return { object: 'list' as const, data: [] };
  }

  async put(caller: Principal, workspace: string, group: string, dto: PutGroupRoleDto): Promise<GroupRoleDto> {
    this.called('put');
    assertGroupName(group);
    assertMayGive(caller, dto.role);
    if (workspace !== WORKSPACE) throw notFound(MEMBER_ERRORS.workspaceNotFound);
    if (dto.project !== undefined && dto.project !== 'support-bot') throw notFound(MEMBER_ERRORS.projectNotFound);
    return {
      id: randomUUID(),
      object: 'group_role',
      group,
      project: dto.project ?? null,
      role: dto.role,
      managedBy: 'api',
      createdAt: new Date().toISOString(),
    };
  }

  async remove(_caller: Principal, workspace: string, group: string, project: string | undefined) {
    this.called('remove');
    assertGroupName(group);
    if (workspace !== WORKSPACE) throw notFound(MEMBER_ERRORS.workspaceNotFound);
    if (group !== 'support-leads') throw notFound(MEMBER_ERRORS.groupRoleNotFound);
    return { object: 'group_role.removed' as const, group, project: project ?? null, removed: true as const };
  }
}

export class FakeInstanceAdmins extends Failing implements Pick<InstanceAdminsService, 'list' | 'grant' | 'revoke'> {
  private user(id: string, email: string, instanceAdmin: boolean): UserDto {
    return { id, object: 'user', email, name: null, active: true, instanceAdmin, createdAt: new Date().toISOString(), lastSignInAt: null };
  }

  async list() {
    this.called('list');
    return { object: 'list' as const, data: [], has_more: false, first_id: null, last_id: null };
  }

  async grant(user: string) {
    this.called('grant');
    const ref = userRefOf(user);
    if (ref.id !== undefined && ref.id !== KNOWN_USER.id) throw notFound(MEMBER_ERRORS.userNotFound);
    return this.user(ref.id ?? randomUUID(), ref.email ?? KNOWN_USER.email, true);
  }

  async revoke(_caller: Principal, user: string) {
    this.called('revoke');
    const ref = userRefOf(user);
    if (ref.email?.toLowerCase() === SOLO) throw conflict(LAST_INSTANCE_ADMIN);
    if (ref.id !== KNOWN_USER.id) throw notFound(MEMBER_ERRORS.userNotFound);
    return this.user(KNOWN_USER.id, KNOWN_USER.email, false);
  }
}
