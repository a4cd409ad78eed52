import { Body, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';

import { Scim, ScimClient, ScimController } from './scim-http';
import { ScimUsersService } from './scim-users.service';

/** `/scim/v2/Users` (RFC 7644 §3; docs/security.md, "SCIM"): the token's workspace's directory of users. */
@ScimController('/Users')
export class ScimUsersController {
  constructor(private readonly users: ScimUsersService) {}

  @Post()
  create(@Scim() client: ScimClient, @Body() body: unknown): Promise<Record<string, unknown>> {
    return this.users.create(client, body);
  }

  @Get()
  list(@Scim() client: ScimClient, @Query() query: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.users.list(client, query);
  }

  @Get(':id')
  get(@Scim() client: ScimClient, @Param('id') id: string): Promise<Record<string, unknown>> {
    return this.users.get(client, id);
  }

  @Put(':id')
  replace(@Scim() client: ScimClient, @Param('id') id: string, @Body() body: unknown): Promise<Record<string, unknown>> {
    return this.users.replace(client, id, body);
  }

  @Patch(':id')
  patch(@Scim() client: ScimClient, @Param('id') id: string, @Body() body: unknown): Promise<Record<string, unknown>> {
    return this.users.patch(client, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  delete(@Scim() client: ScimClient, @Param('id') id: string): Promise<void> {
    return this.users.delete(client, id);
  }
}
