import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { AdminOnly, CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { Principal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { CreateTransaction, InCreateTransaction } from '../idempotency/create-transaction';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import {
  CreateProjectDto,
  CreateWorkspaceDto,
  DeleteProjectDto,
  ProjectDeletedDto,
  ProjectDto,
  ProjectListDto,
  WorkspaceDto,
  WorkspaceListDto,
} from './dto/workspace.dto';
import { assertManages } from './key-grants';
import { ProjectDeletionService } from './project-deletion.service';
import { WorkspacesService } from './workspaces.service';

@ApiTags('Admin: workspaces, projects, API keys')
@ApiSecurity('admin-key')
@ApiErrors(401, 403)
@AdminOnly()
@RequireScope('keys:manage')
@Controller('v2/workspaces')
export class WorkspacesController {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly deletion: ProjectDeletionService,
  ) {}

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

  @Delete(':workspace/projects/:project')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Delete a project and all its data',
    description:
      'Deletes every row of the project in every table (prompts, versions, deployments, logs, threads, usage, datasets, runs, keys, members...) ' +
      "and the project, in one transaction, and writes `project.deleted` on the instance's audit trail. Its keys stop working on every instance at once. " +
      'The body must confirm the project as `{"confirm": "<workspace>/<project>"}` (400 otherwise). Cannot be undone. docs/security.md, "Deleting a project"',
  })
  @ApiOkResponse({ type: ProjectDeletedDto })
  @ApiErrors(400, 404)
  deleteProject(
    @CurrentPrincipal() caller: Principal,
    @Param('workspace') workspace: string,
    @Param('project') project: string,
    @Body() dto: DeleteProjectDto,
  ): Promise<ProjectDeletedDto> {
    // Deleting ends every key of the project: only an admin holding every scope and environment may
    // (a narrow key cannot lock out a wider one; docs/security.md, "Deleting a project").
    assertManages(caller, { scopes: null, environments: null });
    return this.deletion.delete(workspace, project, dto);
  }
}
