import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { AdminOnly, CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { Principal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { ApiKeyAccessDto, ApiKeyDto, ApiKeyListDto, ApiKeyRevokedDto, CreateApiKeyDto, CreatedApiKeyDto } from './dto/api-key.dto';
import { CreateProjectDto, CreateWorkspaceDto, ProjectDto, ProjectListDto, WorkspaceDto, WorkspaceListDto } from './dto/workspace.dto';
import { WorkspacesService } from './workspaces.service';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { CreateTransaction, InCreateTransaction } from '../idempotency/create-transaction';

@ApiTags('Admin: workspaces, projects, API keys')
@ApiSecurity('admin-key')
@ApiErrors(401, 403)
@AdminOnly()
@RequireScope('keys:manage')
@Controller('v2/workspaces')
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspacesService) {}

  @Idempotent()
  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a workspace' })
  @ApiOkResponse({ type: WorkspaceDto })
  @ApiErrors(400, 409)
  createWorkspace(@CurrentPrincipal() caller: Principal, @Body() dto: CreateWorkspaceDto, @InCreateTransaction() tx: CreateTransaction): Promise<WorkspaceDto> {
    return this.workspaces.createWorkspaceAs(caller, dto, tx);
  }

  @Get()
  @ApiOperation({ summary: 'List workspaces' })
  @ApiOkResponse({ type: WorkspaceListDto })
  async listWorkspaces(@CurrentPrincipal() caller: Principal): Promise<WorkspaceListDto> {
    return { object: 'list', data: await this.workspaces.listWorkspaces(caller) };
  }

  @Idempotent()
  @Post(':workspace/projects')
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a project in a workspace' })
  @ApiOkResponse({ type: ProjectDto })
  @ApiErrors(400, 404, 409)
  createProject(@Param('workspace') workspace: string, @Body() dto: CreateProjectDto, @InCreateTransaction() tx: CreateTransaction): Promise<ProjectDto> {
    return tx.run((manager) => this.workspaces.createProject(workspace, dto, manager));
  }

  @Get(':workspace/projects')
  @ApiOperation({ summary: 'List the projects of a workspace' })
  @ApiOkResponse({ type: ProjectListDto })
  @ApiErrors(404)
  async listProjects(@Param('workspace') workspace: string): Promise<ProjectListDto> {
    return { object: 'list', data: await this.workspaces.listProjects(workspace) };
  }

  @Idempotent()
  @Post(':workspace/projects/:project/api-keys')
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a project API key', description: 'The key is in this response only; Parley stores its SHA-256 hash.' })
  @ApiOkResponse({ type: CreatedApiKeyDto })
  @ApiErrors(400, 404)
  createApiKey(
    @CurrentPrincipal() caller: Principal,
    @Param('workspace') workspace: string,
    @Param('project') project: string,
    @Body() dto: CreateApiKeyDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<CreatedApiKeyDto> {
    return this.workspaces.createApiKeyAs(caller, workspace, project, dto, tx);
  }

  @Get(':workspace/projects/:project/api-keys')
  @ApiOperation({ summary: 'List a project\'s API keys (without secrets)' })
  @ApiOkResponse({ type: ApiKeyListDto })
  @ApiErrors(404)
  async listApiKeys(@Param('workspace') workspace: string, @Param('project') project: string): Promise<ApiKeyListDto> {
    return { object: 'list', data: await this.workspaces.listApiKeys(workspace, project) };
  }

  @Put(':workspace/projects/:project/api-keys/:keyId/access')
  @ApiOperation({
    summary: "Replace a project API key's scopes and environments",
    description: 'Neither `preset` nor `scopes`: every scope. Takes effect on the key\'s next request. See docs/security.md, "Scopes".',
  })
  @ApiOkResponse({ type: ApiKeyDto })
  @ApiErrors(400, 404)
  setApiKeyAccess(
    @CurrentPrincipal() caller: Principal,
    @Param('workspace') workspace: string,
    @Param('project') project: string,
    @Param('keyId') keyId: string,
    @Body() dto: ApiKeyAccessDto,
  ): Promise<ApiKeyDto> {
    return this.workspaces.setApiKeyAccess(caller, workspace, project, keyId, dto);
  }

  @Delete(':workspace/projects/:project/api-keys/:keyId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke a project API key' })
  @ApiOkResponse({ type: ApiKeyRevokedDto })
  @ApiErrors(404)
  revokeApiKey(@Param('workspace') workspace: string, @Param('project') project: string, @Param('keyId') keyId: string): Promise<ApiKeyRevokedDto> {
    return this.workspaces.revokeApiKey(workspace, project, keyId);
  }
}
