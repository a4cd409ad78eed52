import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { AdminOrProject, CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { Principal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { CreateTransaction, InCreateTransaction } from '../idempotency/create-transaction';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { ApiKeyAccessDto, ApiKeyDto, ApiKeyListDto, ApiKeyRevokedDto, CreateApiKeyDto, CreatedApiKeyDto } from './dto/api-key.dto';
import { WorkspacesService } from './workspaces.service';

const WHO =
  'The admin key (any project), or a project key with `keys:manage` for its own project only (any other project is a 404). ' +
  'A key never gives, nor changes a key that holds, more scopes or environments than it holds itself (403). See docs/security.md, "Managing keys".';

/** A project's keys: the admin key's, and a project key's own with `keys:manage` (docs/security.md, "Managing keys"). */
@ApiTags('Admin: workspaces, projects, API keys')
@ApiSecurity('admin-key')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@AdminOrProject()
@RequireScope('keys:manage')
@Controller('v2/workspaces/:workspace/projects/:project/api-keys')
export class ProjectApiKeysController {
  constructor(private readonly workspaces: WorkspacesService) {}

  @Idempotent('create', { answerHoldsSecret: true })
  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create a project API key',
    description: `The key is in this response only; Parley stores its SHA-256 hash (with an Idempotency-Key, a retry within 24 h gets the same key again: that answer is kept encrypted with PARLEY_SECRET_KEY, never in plaintext). ${WHO}`,
  })
  @ApiOkResponse({ type: CreatedApiKeyDto })
  @ApiErrors(400, 404)
  create(
    @CurrentPrincipal() caller: Principal,
    @Param('workspace') workspace: string,
    @Param('project') project: string,
    @Body() dto: CreateApiKeyDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<CreatedApiKeyDto> {
    return this.workspaces.createApiKeyAs(caller, workspace, project, dto, tx);
  }

  @Get()
  @ApiOperation({
    summary: "List a project's API keys (without secrets), with their spend, budgets and last use",
    description: `Spend today and this month (UTC) from the daily usage rollups, the budgets that apply (the key's own, else the project's default for keys), the last hour a key was used from the hourly rollups: one query for the whole list (docs/usage.md, "Keys: spend and last use"). ${WHO}`,
  })
  @ApiOkResponse({ type: ApiKeyListDto })
  @ApiErrors(404)
  async list(
    @CurrentPrincipal() caller: Principal,
    @Param('workspace') workspace: string,
    @Param('project') project: string,
  ): Promise<ApiKeyListDto> {
    return { object: 'list', data: await this.workspaces.listKeysWithActivity(workspace, project, caller) };
  }

  @Put(':keyId/access')
  @ApiOperation({
    summary: "Replace a project API key's scopes and environments",
    description: `Neither \`preset\` nor \`scopes\`: every scope. Takes effect on the key's next request. ${WHO}`,
  })
  @ApiOkResponse({ type: ApiKeyDto })
  @ApiErrors(400, 404)
  setAccess(
    @CurrentPrincipal() caller: Principal,
    @Param('workspace') workspace: string,
    @Param('project') project: string,
    @Param('keyId') keyId: string,
    @Body() dto: ApiKeyAccessDto,
  ): Promise<ApiKeyDto> {
    return this.workspaces.setApiKeyAccess(caller, workspace, project, keyId, dto);
  }

  @Delete(':keyId')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Revoke a project API key',
    description: `Ends the key (and its console sessions) on every instance at once. ${WHO}`,
  })
  @ApiOkResponse({ type: ApiKeyRevokedDto })
  @ApiErrors(404)
  revoke(
    @CurrentPrincipal() caller: Principal,
    @Param('workspace') workspace: string,
    @Param('project') project: string,
    @Param('keyId') keyId: string,
  ): Promise<ApiKeyRevokedDto> {
    return this.workspaces.revokeApiKey(workspace, project, keyId, caller);
  }
}
