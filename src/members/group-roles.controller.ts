import { Body, Controller, Delete, Get, HttpCode, Param, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { AdminOnly, CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { Principal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { GroupRoleDto, GroupRoleListDto, GroupRoleQuery, GroupRoleRemovedDto, PutGroupRoleDto } from './dto/member.dto';
import { GroupRolesService } from './group-roles.service';
import { MEMBERS_WHO } from './members.controller';

const GROUP_PARAM = {
  name: 'group',
  description: "the group as the identity provider names it: the groups claim's value (exactly), or a SCIM group's displayName (any case)",
  example: 'support-leads',
};

/** Roles given to the identity provider's groups (docs/security.md, "Group roles"). */
@ApiTags('Admin: members and roles')
@ApiSecurity('admin-key')
@ApiErrors(401, 403)
@AdminOnly()
@RequireScope('members:manage')
@Controller('v2/workspaces/:workspace/group-roles')
export class GroupRolesController {
  constructor(private readonly groupRoles: GroupRolesService) {}

  @Get()
  @ApiOperation({ summary: "List a workspace's group roles", description: MEMBERS_WHO })
  @ApiOkResponse({ type: GroupRoleListDto })
  @ApiErrors(404)
  list(@CurrentPrincipal() caller: Principal, @Param('workspace') workspace: string): Promise<GroupRoleListDto> {
    return this.groupRoles.list(caller, workspace);
  }

  @Put(':group')
  @ApiOperation({
    summary: 'Give a group a role',
    description:
      'In the whole workspace, or with `project` in that project only. Everyone in the group holds it from their next request (the groups claim of their last sign-in, ' +
      `or the workspace's SCIM groups). Roles a project's parley.yaml gives its groups are best kept there (docs/apply.md, "Access"). ${MEMBERS_WHO}`,
  })
  @ApiParam(GROUP_PARAM)
  @ApiOkResponse({ type: GroupRoleDto })
  @ApiErrors(400, 404)
  put(
    @CurrentPrincipal() caller: Principal,
    @Param('workspace') workspace: string,
    @Param('group') group: string,
    @Body() dto: PutGroupRoleDto,
  ): Promise<GroupRoleDto> {
    return this.groupRoles.put(caller, workspace, group, dto);
  }

  @Delete(':group')
  @HttpCode(200)
  @ApiOperation({
    summary: "Remove a group's role",
    description: `The workspace-wide one, or with \`?project=\` the one in that project. Its members lose it from their next request. ${MEMBERS_WHO}`,
  })
  @ApiParam(GROUP_PARAM)
  @ApiOkResponse({ type: GroupRoleRemovedDto })
  @ApiErrors(400, 404)
  remove(
    @CurrentPrincipal() caller: Principal,
    @Param('workspace') workspace: string,
    @Param('group') group: string,
    @Query() query: GroupRoleQuery,
  ): Promise<GroupRoleRemovedDto> {
    return this.groupRoles.remove(caller, workspace, group, query.project);
  }
}
