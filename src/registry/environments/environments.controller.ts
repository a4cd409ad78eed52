import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../../auth/auth.decorators';
import { ProjectPrincipal } from '../../auth/principal';
import { ApiErrors } from '../../common/swagger/error-responses';
import { CreateTransaction, InCreateTransaction } from '../../idempotency/create-transaction';
import { Idempotent } from '../../idempotency/idempotency.interceptor';
import {
  CreateEnvironmentDto,
  EnvironmentDeletedDto,
  EnvironmentDto,
  EnvironmentListDto,
  EnvironmentProtectionDto,
} from './environment.dto';
import { EnvironmentDeletionService } from './environment-deletion.service';
import { EnvironmentGateDeletedDto, EnvironmentGateDto, PutGateBodyDto } from './environment-gate.dto';
import { EnvironmentGateService } from './environment-gate.service';
import { EnvironmentProtectionService } from './environment-protection.service';
import { EnvironmentsService } from './environments.service';

@ApiTags('Registry: environments')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@Controller('v2/environments')
export class EnvironmentsController {
  constructor(
    private readonly environments: EnvironmentsService,
    private readonly gates: EnvironmentGateService,
    private readonly protection: EnvironmentProtectionService,
    private readonly deletion: EnvironmentDeletionService,
  ) {}

  @Idempotent()
  @RequireScope('registry:write')
  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create an environment', description: 'Every project starts with preview, staging and production.' })
  @ApiOkResponse({ type: EnvironmentDto })
  @ApiErrors(400, 409)
  create(
    @CurrentProject() caller: ProjectPrincipal,
    @Body() dto: CreateEnvironmentDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<EnvironmentDto> {
    return this.environments.createIn(tx, caller.projectId, dto.slug);
  }

  @RequireScope('registry:read')
  @Get()
  @ApiOperation({ summary: 'List the environments of the project', description: 'Sorted by slug.' })
  @ApiOkResponse({ type: EnvironmentListDto })
  async list(@CurrentProject() caller: ProjectPrincipal): Promise<EnvironmentListDto> {
    return { object: 'list', data: await this.environments.list(caller.projectId) };
  }

  @RequireScope('registry:write')
  @Delete(':slug')
  @ApiOperation({
    summary: 'Delete an environment',
    description:
      'Only one that runs nothing: while any prompt is deployed there, 409 naming them (undeploy them first); a protected one is 409 too ' +
      '(a project admin removes its protection first), and one with pending deployment requests. Its deployment history, decided ' +
      'deployment requests and deploy gate go with it (the audit trail keeps every deployment made there); the slug can be created again.',
  })
  @ApiOkResponse({ type: EnvironmentDeletedDto })
  @ApiErrors(404, 409)
  delete(@CurrentProject() caller: ProjectPrincipal, @Param('slug') slug: string): Promise<EnvironmentDeletedDto> {
    return this.deletion.delete(caller.projectId, slug);
  }

  @RequireScope('registry:read')
  @Get(':slug/gate')
  @ApiOperation({ summary: "Get an environment's deploy gate", description: 'docs/evals.md, "The deploy gate".' })
  @ApiOkResponse({ type: EnvironmentGateDto })
  @ApiErrors(404)
  gate(@CurrentProject() caller: ProjectPrincipal, @Param('slug') slug: string): Promise<EnvironmentGateDto> {
    return this.gates.get(caller.projectId, slug);
  }

  @RequireScope('registry:write')
  @Put(':slug/gate')
  @ApiOperation({
    summary: 'Set the deploy gate of an environment',
    description:
      'A deploy of a version there then needs a completed run of it on `dataset` whose mean score per grader reaches `minScores`.',
  })
  @ApiBody({ type: PutGateBodyDto })
  @ApiOkResponse({ type: EnvironmentGateDto })
  @ApiErrors(400, 404)
  setGate(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('slug') slug: string,
    @Body() body: PutGateBodyDto,
  ): Promise<EnvironmentGateDto> {
    return this.gates.put(caller.projectId, slug, body);
  }

  @RequireScope('registry:write')
  @Delete(':slug/gate')
  @ApiOperation({ summary: 'Remove the deploy gate of an environment' })
  @ApiOkResponse({ type: EnvironmentGateDeletedDto })
  @ApiErrors(404)
  removeGate(@CurrentProject() caller: ProjectPrincipal, @Param('slug') slug: string): Promise<EnvironmentGateDeletedDto> {
    return this.gates.remove(caller.projectId, slug);
  }

  @RequireScope('members:manage')
  @Put(':slug/protection')
  @ApiOperation({
    summary: 'Protect an environment',
    description:
      '`requireApproval`: a deploy or rollback there by anyone becomes a deployment request that another person with the deploy scope approves. `barKeys`: API keys may not deploy there. Needs the project\'s admin role (`members:manage`) signed in, or the admin key; a project key is refused (docs/security.md, "Approvals").',
  })
  @ApiOkResponse({ type: EnvironmentDto })
  @ApiErrors(400, 404)
  setProtection(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('slug') slug: string,
    @Body() body: EnvironmentProtectionDto,
  ): Promise<EnvironmentDto> {
    return this.protection.put(caller, slug, body);
  }

  @RequireScope('members:manage')
  @Delete(':slug/protection')
  @ApiOperation({
    summary: "Remove an environment's protection",
    description: 'Pending deployment requests stay pending: approve, reject or cancel them.',
  })
  @ApiOkResponse({ type: EnvironmentDto })
  @ApiErrors(404)
  removeProtection(@CurrentProject() caller: ProjectPrincipal, @Param('slug') slug: string): Promise<EnvironmentDto> {
    return this.protection.remove(caller, slug);
  }
}
