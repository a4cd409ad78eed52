import { Body, Controller, Delete, Get, HttpCode, Param, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { AdminOrProject, CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { Principal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { MemberDto, MemberListDto, MemberRemovedDto, MembersQuery, PutMemberDto } from './dto/member.dto';
import { USER_PARAM } from './members.controller';
import { MembersService } from './members.service';

const WHO =
  "The instance's admin key, the workspace's admin key or admins, or, for this project only, a person with the project's `admin` role " +
  '(their console session with `X-Parley-Project: <workspace>/<project>`) or a project key holding `members:manage`; any other project is a 404. ' +
  'A caller never gives, changes or removes a role holding scopes it does not hold itself (403). See docs/security.md, "Roles".';

/** A project's own members: roles given in this project only (docs/security.md, "Roles"). */
@ApiTags('Admin: members and roles')
@ApiSecurity('admin-key')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@AdminOrProject()
@RequireScope('members:manage')
@Controller('v2/workspaces/:workspace/projects/:project/members')
export class ProjectMembersController {
  constructor(private readonly members: MembersService) {}

  @Get()
  @ApiOperation({
    summary: "List a project's members",
    description:
      "Everyone holding a role in the project: its own members and the workspace's (a workspace-wide role applies in every project), directly or through a group, in user id order. " +
      `Each member as the workspace's list shows them, with this project's roles only. ${WHO}`,
  })
  @ApiOkResponse({ type: MemberListDto })
  @ApiErrors(400, 404)
  list(
    @CurrentPrincipal() caller: Principal,
    @Param('workspace') workspace: string,
    @Param('project') project: string,
    @Query() query: MembersQuery,
  ): Promise<MemberListDto> {
    return this.members.members(caller, workspace, project, query);
  }

  @Put(':user')
  @ApiOperation({
    summary: 'Give a user a role in this project',
    description:
      "Creates or changes the user's membership in this project; their role here is the strongest of it and their workspace-wide one. " +
      `An e-mail address nobody has signed in with yet gets its user now, and the role from their first sign-in. ${WHO}`,
  })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors(400, 404)
  put(
    @CurrentPrincipal() caller: Principal,
    @Param('workspace') workspace: string,
    @Param('project') project: string,
    @Param('user') user: string,
    @Body() dto: PutMemberDto,
  ): Promise<MemberDto> {
    return this.members.put(caller, workspace, project, user, dto);
  }

  @Delete(':user')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Remove a user from this project',
    description: `Removes the user's membership in this project (a workspace-wide role stays). A user left with no role anywhere loses every console session at once. ${WHO}`,
  })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: MemberRemovedDto })
  @ApiErrors(400, 404)
  remove(
    @CurrentPrincipal() caller: Principal,
    @Param('workspace') workspace: string,
    @Param('project') project: string,
    @Param('user') user: string,
  ): Promise<MemberRemovedDto> {
    return this.members.remove(caller, workspace, project, user);
  }
}
