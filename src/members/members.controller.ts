import { Body, Controller, Delete, Get, HttpCode, Param, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { AdminOnly, CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { Principal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { MemberDto, MemberListDto, MemberRemovedDto, MembersQuery, PutMemberDto } from './dto/member.dto';
import { MembersService } from './members.service';

export const MEMBERS_WHO =
  "The instance's admin key, the workspace's admin key, or a person with the workspace's `admin` role (their console session); " +
  'any other workspace is a 404. A caller never gives, changes or removes a role holding scopes it does not hold itself (403). ' +
  'See docs/security.md, "Roles".';

export const USER_PARAM = {
  name: 'user',
  description: "the user's id, or their e-mail address (any case)",
  example: 'ana@example.com',
};

/** A workspace's members and their workspace-wide roles (docs/security.md, "Roles"). */
@ApiTags('Admin: members and roles')
@ApiSecurity('admin-key')
@ApiErrors(401, 403)
@AdminOnly()
@RequireScope('members:manage')
@Controller('v2/workspaces/:workspace/members')
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @Get()
  @ApiOperation({
    summary: "List a workspace's members",
    description:
      'Everyone holding a role in the workspace or any of its projects, directly (a membership) or through a group, in user id order; ' +
      `\`after\` is the previous page's \`last_id\`. Each with the strongest workspace-wide role, the roles given in single projects, and every grant with its source. ${MEMBERS_WHO}`,
  })
  @ApiOkResponse({ type: MemberListDto })
  @ApiErrors(400, 404)
  list(@CurrentPrincipal() caller: Principal, @Param('workspace') workspace: string, @Query() query: MembersQuery): Promise<MemberListDto> {
    return this.members.members(caller, workspace, undefined, query);
  }

  @Put(':user')
  @ApiOperation({
    summary: 'Give a user a role in the whole workspace',
    description:
      "Creates or changes the user's workspace-wide membership. An e-mail address nobody has signed in with yet gets its user now: " +
      'the role applies from their first sign-in with that address. Takes effect on their next request, on every instance. ' +
      `A person cannot give up their own admin role when nobody else is the workspace's admin (409). ${MEMBERS_WHO}`,
  })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors(400, 404, 409)
  put(
    @CurrentPrincipal() caller: Principal,
    @Param('workspace') workspace: string,
    @Param('user') user: string,
    @Body() dto: PutMemberDto,
  ): Promise<MemberDto> {
    return this.members.put(caller, workspace, undefined, user, dto);
  }

  @Delete(':user')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Remove a user from a workspace',
    description:
      'Removes every membership of the user in the workspace (the workspace-wide one and those in its projects; roles through groups stay while the group does). ' +
      'A user left with no role anywhere loses every console session at once, on every instance; otherwise their next request is refused what they lost. ' +
      `A person cannot remove themselves as the workspace's only admin (409). ${MEMBERS_WHO}`,
  })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: MemberRemovedDto })
  @ApiErrors(400, 404, 409)
  remove(
    @CurrentPrincipal() caller: Principal,
    @Param('workspace') workspace: string,
    @Param('user') user: string,
  ): Promise<MemberRemovedDto> {
    return this.members.remove(caller, workspace, undefined, user);
  }
}
