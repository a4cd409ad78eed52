import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../../auth/auth.decorators';
import { ProjectPrincipal } from '../../auth/principal';
import { PageQuery } from '../../common/pagination';
import { ApiErrors } from '../../common/swagger/error-responses';
import { CreateTransaction, InCreateTransaction } from '../../idempotency/create-transaction';
import { Idempotent } from '../../idempotency/idempotency.interceptor';
import { DeploymentRequestsService } from '../deployments/deployment-requests.service';
import { DeploymentsService } from '../deployments/deployments.service';
import { DeployDto, DeploymentDto, DeploymentListDto, DeploymentsQuery } from '../deployments/dto/deployment.dto';
import { DeploymentRequestDto } from '../deployments/dto/deployment-request.dto';
import { CreatePromptDto, PromptDto, PromptListDto, PromptsQuery } from './dto/prompt.dto';
import { CreateVersionDto, VersionDto, VersionListDto } from './dto/version.dto';
import { PromptsService } from './prompts.service';
import { VersionsService } from './versions.service';

@ApiTags('Registry: prompts, versions, deployments')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@Controller('v2/prompts')
export class PromptsController {
  constructor(
    private readonly prompts: PromptsService,
    private readonly versions: VersionsService,
    private readonly deployments: DeploymentsService,
    private readonly requests: DeploymentRequestsService,
  ) {}

  @Idempotent()
  @RequireScope('registry:write')
  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create a prompt or assistant',
    description: 'Slugs are unique per project across both kinds. Add content with POST /v2/prompts/{slug}/versions.',
  })
  @ApiOkResponse({ type: PromptDto })
  @ApiErrors(400, 409)
  create(
    @CurrentProject() caller: ProjectPrincipal,
    @Body() dto: CreatePromptDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<PromptDto> {
    return this.prompts.create(caller.projectId, dto, tx);
  }

  @RequireScope('registry:read')
  @Get()
  @ApiOperation({
    summary: 'List prompts and assistants',
    description: 'In creation order; next page: `after` = the last id of this page. Archived ones only with `archived=true`.',
  })
  @ApiOkResponse({ type: PromptListDto })
  @ApiErrors(400)
  list(@CurrentProject() caller: ProjectPrincipal, @Query() page: PromptsQuery): Promise<PromptListDto> {
    return this.prompts.list(caller.projectId, page);
  }

  @RequireScope('registry:read')
  @Get(':slug')
  @ApiOperation({ summary: 'Get a prompt or assistant, with its current deployments' })
  @ApiOkResponse({ type: PromptDto })
  @ApiErrors(404)
  get(@CurrentProject() caller: ProjectPrincipal, @Param('slug') slug: string): Promise<PromptDto> {
    return this.prompts.get(caller.projectId, slug);
  }

  @Idempotent()
  @RequireScope('registry:write')
  @Post(':slug/versions')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create a version',
    description:
      'Versions are immutable and numbered 1, 2, 3…. The template is compiled now: one that does not compile is a 400 naming the message and line.',
  })
  @ApiOkResponse({ type: VersionDto })
  @ApiErrors(400, 404, 409)
  createVersion(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('slug') slug: string,
    @Body() dto: CreateVersionDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<VersionDto> {
    return this.versions.create(caller.projectId, slug, dto, tx);
  }

  @RequireScope('registry:read')
  @Get(':slug/versions')
  @ApiOperation({ summary: 'List versions', description: 'Newest first; next page: `after` = the last id of this page.' })
  @ApiOkResponse({ type: VersionListDto })
  @ApiErrors(400, 404)
  listVersions(@CurrentProject() caller: ProjectPrincipal, @Param('slug') slug: string, @Query() page: PageQuery): Promise<VersionListDto> {
    return this.versions.list(caller.projectId, slug, page);
  }

  @RequireScope('registry:read')
  @Get(':slug/versions/:version')
  @ApiOperation({ summary: 'Get a version by number' })
  @ApiParam({ name: 'version', example: 3 })
  @ApiOkResponse({ type: VersionDto })
  @ApiErrors(404)
  getVersion(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('slug') slug: string,
    @Param('version') version: string,
  ): Promise<VersionDto> {
    return this.versions.get(caller.projectId, slug, version);
  }

  @Idempotent()
  @RequireScope('deploy')
  @Post(':slug/deployments')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Deploy a version to an environment',
    description:
      "Replaces the environment's current deployment (kept in the history) and increments its deploymentVersion. Deploying the version already current changes nothing. " +
      'A rollback is a deploy of an older version. In an environment that requires approval the deploy waits instead: 202 with a pending deployment request ' +
      'that another person approves (POST /v2/deployment-requests/{id}/approve); where keys are barred, a key is refused (403). docs/security.md, "Approvals". ' +
      'An archived prompt is not deployed (409: restore it first), nor a version the deploy gate refuses (409).',
  })
  @ApiOkResponse({ type: DeploymentDto })
  @ApiResponse({
    status: 202,
    type: DeploymentRequestDto,
    description:
      'the environment requires approval: nothing is deployed yet; the pending request (the same one again for an identical deploy)',
  })
  @ApiErrors(400, 404, 409)
  deploy(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('slug') slug: string,
    @Body() dto: DeployDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<DeploymentDto | DeploymentRequestDto> {
    return this.requests.deploy(caller, slug, dto, tx);
  }

  @RequireScope('registry:read')
  @Get(':slug/deployments')
  @ApiOperation({
    summary: 'Deployment history of a prompt',
    description: 'Newest first, replaced deployments included (`current: false`).',
  })
  @ApiOkResponse({ type: DeploymentListDto })
  @ApiErrors(404)
  history(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('slug') slug: string,
    @Query() filter: DeploymentsQuery,
  ): Promise<DeploymentListDto> {
    return this.deployments.history(caller.projectId, slug, filter.environment);
  }
}
