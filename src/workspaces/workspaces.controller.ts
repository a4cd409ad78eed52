import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { AdminOnly, CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { Principal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { CreateTransaction, InCreateTransaction } from '../idempotency/create-transaction';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { CreateProjectDto, CreateWorkspaceDto, ProjectDto, ProjectListDto, WorkspaceDto, WorkspaceListDto } from './dto/workspace.dto';
import { WorkspacesService } from './workspaces.service';

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
  createWorkspace(
    @CurrentPrincipal() caller: Principal,
    @Body() dto: CreateWorkspaceDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<WorkspaceDto> {
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
  createProject(
    @Param('workspace') workspace: string,
    @Body() dto: CreateProjectDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<ProjectDto> {
    return tx.run((manager) => this.workspaces.createProject(workspace, dto, manager));
  }

  @Get(':workspace/projects')
  @ApiOperation({ summary: 'List the projects of a workspace' })
  @ApiOkResponse({ type: ProjectListDto })
  @ApiErrors(404)
  async listProjects(@Param('workspace') workspace: string): Promise<ProjectListDto> {
    return { object: 'list', data: await this.workspaces.listProjects(workspace) };
  }
}
