import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { Principal } from '../auth/principal';
import { conflict, notFound } from '../common/errors';
import { UserAccessRepository } from '../people/user-access.repository';
import { GroupRoleDto, GroupRoleListDto, GroupRoleRemovedDto, PutGroupRoleDto } from './dto/member.dto';
import { GroupRoleRow, GroupRolesRepository } from './group-roles.repository';
import { toGroupRoleDto } from './member.mapper';
import { MemberListRepository } from './member-list.repository';
import { MemberPlaces } from './member-places';
import { assertGroupName, assertMayGive, isInstanceAdmin, lastAdminMessage, MEMBER_ERRORS } from './member-rules';
import { MemberSessions } from './member-sessions';
import { MemberPlace, MemberWrites } from './member-writes';
import { MembershipsRepository } from './memberships.repository';

/**
 * Roles given to a group of the identity provider (docs/security.md, "Group roles"): in a whole
 * workspace, or in one of its projects. Whoever is in the group holds the role from their next
 * request (the groups claim of their last sign-in, or the workspace's SCIM groups). A removal
 * ends the sessions of the group's people it left with no role anywhere (docs/security.md, "Roles").
 */
@Injectable()
export class GroupRolesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly places: MemberPlaces,
    private readonly groupRoles: GroupRolesRepository,
    private readonly writes: MemberWrites,
    private readonly memberList: MemberListRepository,
    private readonly memberships: MembershipsRepository,
    private readonly people: UserAccessRepository,
    private readonly sessions: MemberSessions,
  ) {}

  async list(caller: Principal, workspace: string): Promise<GroupRoleListDto> {
    const found = await this.places.workspace(caller, workspace);
    return { object: 'list', data: (await this.groupRoles.list(found.id)).map(toGroupRoleDto) };
  }

  async put(caller: Principal, workspace: string, group: string, dto: PutGroupRoleDto): Promise<GroupRoleDto> {
    assertGroupName(group);
    assertMayGive(caller, dto.role);
    return this.dataSource.transaction(async (manager) => {
      const place = await this.places.place(caller, workspace, dto.project, manager);
      await this.writes.lockWorkspace(manager, place.workspace.id);
      const at = { workspaceId: place.workspace.id, projectId: place.project?.id ?? null, group };
      const existing = await this.groupRoles.find(manager, at);
      if (existing) assertMayGive(caller, existing.role);
      if (existing && existing.role === 'admin' && dto.role !== 'admin') await this.assertNotLastAdmin(manager, caller, place, existing);
      await this.writes.setGroupRole(manager, place, group, dto.role, 'api');
      return toGroupRoleDto((await this.groupRoles.find(manager, at))!);
    });
  }

  async remove(caller: Principal, workspace: string, group: string, project: string | undefined): Promise<GroupRoleRemovedDto> {
    assertGroupName(group);
    const removed = await this.dataSource.transaction(async (manager) => {
      const place = await this.places.place(caller, workspace, project, manager);
      await this.writes.lockWorkspace(manager, place.workspace.id);
      const row = await this.groupRoles.find(manager, { workspaceId: place.workspace.id, projectId: place.project?.id ?? null, group });
      if (!row) throw notFound(MEMBER_ERRORS.groupRoleNotFound);
      assertMayGive(caller, row.role);
      await this.assertNotLastAdmin(manager, caller, place, row);
      await this.writes.removeGroupRole(manager, place.workspace.id, row);
      return { people: await this.people.groupPeople(place.workspace.id, group, manager), project: place.project?.slug ?? null };
    });
    await this.sessions.endWhereRoleless(removed.people);
    return { object: 'group_role.removed', group, project: removed.project, removed: true };
  }

  /**
   * MembersService's rule for a group's workspace-wide admin role: a person in the group who would
   * hold no workspace-wide admin role there any more, while nobody else holds one directly, gets
   * 409. Keys and instance admins are not held to it.
   */
  private async assertNotLastAdmin(manager: EntityManager, caller: Principal, place: MemberPlace, row: GroupRoleRow): Promise<void> {
    if (!caller.user || isInstanceAdmin(caller) || row.project_id !== null || row.role !== 'admin') return;
    const userId = caller.user.id;
    if (!(await this.people.groupPeople(place.workspace.id, row.group_name, manager)).includes(userId)) return;
    const grants = await this.memberList.grants(place.workspace.id, null, [userId], manager);
    const keeps = grants.some(
      (grant) => grant.project_id === null && grant.role === 'admin' && !(grant.source === 'group' && grant.group_name === row.group_name),
    );
    if (keeps || (await this.memberships.otherWorkspaceAdmins(manager, place.workspace.id, userId)) > 0) return;
    throw conflict(lastAdminMessage(place.workspace.slug));
  }
}
