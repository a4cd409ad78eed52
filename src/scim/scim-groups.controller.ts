import { Body, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';

import { ScimGroupsService } from './scim-groups.service';
import { Scim, ScimClient, ScimController } from './scim-http';

/** `/scim/v2/Groups` (RFC 7644 §3; docs/security.md, "SCIM"): the token's workspace's groups, whose names map to roles. */
@ScimController('/Groups')
export class ScimGroupsController {
  constructor(private readonly groups: ScimGroupsService) {}

  @Post()
  create(@Scim() client: ScimClient, @Body() body: unknown): Promise<Record<string, unknown>> {
    return this.groups.create(client, body);
  }

  @Get()
  list(@Scim() client: ScimClient, @Query() query: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.groups.list(client, query);
  }

  @Get(':id')
  get(@Scim() client: ScimClient, @Param('id') id: string, @Query() query: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.groups.get(client, id, query);
  }

  @Put(':id')
  replace(@Scim() client: ScimClient, @Param('id') id: string, @Body() body: unknown): Promise<Record<string, unknown>> {
    return this.groups.replace(client, id, body);
  }

  @Patch(':id')
  @HttpCode(204)
  patch(@Scim() client: ScimClient, @Param('id') id: string, @Body() body: unknown): Promise<void> {
    return this.groups.patch(client, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  delete(@Scim() client: ScimClient, @Param('id') id: string): Promise<void> {
    return this.groups.delete(client, id);
  }
}
