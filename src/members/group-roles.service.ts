import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { Principal } from '../auth/principal';
import { notFound } from '../common/errors';
import { GroupRoleDto, GroupRoleListDto, GroupRoleRemovedDto, PutGroupRoleDto } from './dto/member.dto';
import { GroupRolesRepository } from './group-roles.repository';
import { toGroupRoleDto } from './member.mapper';
import { MemberPlaces } from './member-places';
import { assertGroupName, assertMayGive, MEMBER_ERRORS } from './member-rules';
import { MemberWrites } from './member-writes';

/**
 * Roles given to a group of the identity provider (docs/security.md, "Group roles"): in a whole
 * workspace, or in one of its projects. Whoever is in the group holds the role from their next
 * request (the groups claim of their last sign-in, or the workspace's SCIM groups).
 */
@Injectable()
export class GroupRolesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly places: MemberPlaces,
    private readonly groupRoles: GroupRolesRepository,
    private readonly writes: MemberWrites,
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
      await this.writes.setGroupRole(manager, place, group, dto.role, 'api');
      return toGroupRoleDto((await this.groupRoles.find(manager, at))!);
    });
  }

  async remove(caller: Principal, workspace: string, group: string, project: string | undefined): Promise<GroupRoleRemovedDto> {
    assertGroupName(group);
    return this.dataSource.transaction(async (manager) => {
      const place = await this.places.place(caller, workspace, project, manager);
      await this.writes.lockWorkspace(manager, place.workspace.id);
      const row = await this.groupRoles.find(manager, { workspaceId: place.workspace.id, projectId: place.project?.id ?? null, group });
      if (!row) throw notFound(MEMBER_ERRORS.groupRoleNotFound);
      assertMayGive(caller, row.role);
      await this.writes.removeGroupRole(manager, place.workspace.id, row);
      return { object: 'group_role.removed', group, project: place.project?.slug ?? null, removed: true };
    });
  }
}
