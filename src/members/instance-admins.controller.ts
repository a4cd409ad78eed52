import { Controller, Delete, Get, HttpCode, Param, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal, InstanceAdminOnly, RequireScope } from '../auth/auth.decorators';
import { Principal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { UserDto, UserListDto, UsersQuery } from './dto/user.dto';
import { InstanceAdminsService } from './instance-admins.service';
import { USER_PARAM } from './members.controller';

const WHO = 'The instance\'s admin key, or an instance admin person (their console session). See docs/security.md, "Instance admins".';

/** The instance's users and its admins. */
@ApiTags('Admin: members and roles')
@ApiSecurity('admin-key')
@ApiErrors(401, 403)
@InstanceAdminOnly()
@RequireScope('members:manage')
@Controller('v2/admin/users')
export class InstanceAdminsController {
  constructor(private readonly admins: InstanceAdminsService) {}

  @Get()
  @ApiOperation({
    summary: "List the instance's users",
    description: `Everyone who signed in, was given a role by e-mail, or was provisioned by SCIM, oldest first; \`after\` is the previous page's \`last_id\`. ${WHO}`,
  })
  @ApiOkResponse({ type: UserListDto })
  @ApiErrors(400)
  list(@Query() query: UsersQuery): Promise<UserListDto> {
    return this.admins.list(query);
  }

  @Put(':user/instance-admin')
  @ApiOperation({
    summary: 'Make a user an instance admin',
    description: `Every workspace, every scope, as the instance's admin key. An e-mail address nobody has signed in with yet gets its user now. ${WHO}`,
  })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: UserDto })
  @ApiErrors(400, 404)
  grant(@Param('user') user: string): Promise<UserDto> {
    return this.admins.grant(user);
  }

  @Delete(':user/instance-admin')
  @HttpCode(200)
  @ApiOperation({
    summary: "End a user's instance admin role",
    description: `A person cannot end their own when no other active user is an instance admin (409). A user left with no role anywhere loses every console session at once. ${WHO}`,
  })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: UserDto })
  @ApiErrors(400, 404, 409)
  revoke(@CurrentPrincipal() caller: Principal, @Param('user') user: string): Promise<UserDto> {
    return this.admins.revoke(caller, user);
  }
}
