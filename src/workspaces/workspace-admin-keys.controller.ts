import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { AdminOnly, CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { Principal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { CreateTransaction, InCreateTransaction } from '../idempotency/create-transaction';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { ApiKeyRevokedDto, CreatedWorkspaceAdminKeyDto, CreateWorkspaceAdminKeyDto, WorkspaceAdminKeyListDto } from './dto/api-key.dto';
import { WorkspaceAdminKeysService } from './workspace-admin-keys.service';

@ApiTags('Admin: workspaces, projects, API keys')
@ApiSecurity('admin-key')
@ApiErrors(401, 403)
@AdminOnly()
@RequireScope('keys:manage')
@Controller('v2/workspaces/:workspace/admin-keys')
export class WorkspaceAdminKeysController {
  constructor(private readonly adminKeys: WorkspaceAdminKeysService) {}

  @Idempotent('create', { answerHoldsSecret: true })
  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create a workspace admin key',
    description:
      'An admin key for this workspace only: it manages its projects, keys and limits, applies and exports its projects, and gets 404 for every other workspace. ' +
      'It cannot create workspaces, nor grant scopes it does not hold. The key is in this response only (with an Idempotency-Key, a retry within 24 h gets it again: that answer is kept encrypted with PARLEY_SECRET_KEY, never in plaintext). See docs/security.md, "Workspace admin keys".',
  })
  @ApiOkResponse({ type: CreatedWorkspaceAdminKeyDto })
  @ApiErrors(400, 404)
  create(
    @CurrentPrincipal() caller: Principal,
    @Param('workspace') workspace: string,
    @Body() dto: CreateWorkspaceAdminKeyDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<CreatedWorkspaceAdminKeyDto> {
    return this.adminKeys.create(caller, workspace, dto, tx);
  }

  @Get()
  @ApiOperation({ summary: "List a workspace's admin keys (without secrets)" })
  @ApiOkResponse({ type: WorkspaceAdminKeyListDto })
  @ApiErrors(404)
  async list(@Param('workspace') workspace: string): Promise<WorkspaceAdminKeyListDto> {
    return { object: 'list', data: await this.adminKeys.list(workspace) };
  }

  @Delete(':keyId')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Revoke a workspace admin key',
    description: 'A key never revokes one that holds more scopes than itself (403).',
  })
  @ApiOkResponse({ type: ApiKeyRevokedDto })
  @ApiErrors(404)
  revoke(
    @CurrentPrincipal() caller: Principal,
    @Param('workspace') workspace: string,
    @Param('keyId') keyId: string,
  ): Promise<ApiKeyRevokedDto> {
    return this.adminKeys.revoke(caller, workspace, keyId);
  }
}
