import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { AdminOnly, RequireScope } from '../auth/auth.decorators';
import { ApiErrors } from '../common/swagger/error-responses';
import { CreateTransaction, InCreateTransaction } from '../idempotency/create-transaction';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { CreatedScimTokenDto, CreateScimTokenDto, ScimTokenListDto, ScimTokenRevokedDto } from './dto/scim-token.dto';
import { ScimTokensService } from './scim-tokens.service';

/**
 * A workspace's SCIM tokens (docs/security.md, "SCIM"): the instance's admin key, the workspace's
 * admin key, or a person with the workspace's admin role (the guard maps them all to the admin
 * routes), holding `members:manage`: a token provisions the workspace's people.
 */
@ApiTags('Admin: workspaces, projects, API keys')
@ApiSecurity('admin-key')
@ApiErrors(401, 403)
@AdminOnly()
@RequireScope('members:manage')
@Controller('v2/workspaces/:workspace/scim-tokens')
export class ScimTokensController {
  constructor(private readonly tokens: ScimTokensService) {}

  @Idempotent('create', { answerHoldsSecret: true })
  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create a SCIM token',
    description:
      "The bearer token of an identity provider's SCIM 2.0 connection to `{PUBLIC_URL}/scim/v2`, for this workspace's people and groups. " +
      'The token is in this response only (with an Idempotency-Key, a retry within 24 h gets it again, kept encrypted with PARLEY_SECRET_KEY). ' +
      'See docs/security.md, "SCIM".',
  })
  @ApiOkResponse({ type: CreatedScimTokenDto })
  @ApiErrors(400, 404)
  create(
    @Param('workspace') workspace: string,
    @Body() dto: CreateScimTokenDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<CreatedScimTokenDto> {
    return this.tokens.create(workspace, dto, tx);
  }

  @Get()
  @ApiOperation({ summary: "List a workspace's SCIM tokens (without secrets)" })
  @ApiOkResponse({ type: ScimTokenListDto })
  @ApiErrors(404)
  async list(@Param('workspace') workspace: string): Promise<ScimTokenListDto> {
    return { object: 'list', data: await this.tokens.list(workspace) };
  }

  @Delete(':tokenId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke a SCIM token', description: 'Its next SCIM request is refused with 401, on every instance.' })
  @ApiOkResponse({ type: ScimTokenRevokedDto })
  @ApiErrors(404)
  revoke(@Param('workspace') workspace: string, @Param('tokenId') tokenId: string): Promise<ScimTokenRevokedDto> {
    return this.tokens.revoke(workspace, tokenId);
  }
}
