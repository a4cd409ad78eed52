import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../../auth/auth.decorators';
import { ProjectPrincipal } from '../../auth/principal';
import { ApiErrors } from '../../common/swagger/error-responses';
import { CreateTransaction, InCreateTransaction } from '../../idempotency/create-transaction';
import { Idempotent } from '../../idempotency/idempotency.interceptor';
import { DeploymentRequestsService } from './deployment-requests.service';
import {
  DecideDeploymentRequestDto,
  DeploymentRequestDto,
  DeploymentRequestListDto,
  DeploymentRequestsQuery,
} from './dto/deployment-request.dto';

const DECIDERS =
  'Needs the deploy scope and a person signed in (an API key is refused: 403), not the one who asked (403); the request must still be pending (409).';

/** Deployment requests to protected environments (docs/security.md, "Approvals"). */
@ApiTags('Registry: prompts, versions, deployments')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@Controller('v2/deployment-requests')
export class DeploymentRequestsController {
  constructor(private readonly requests: DeploymentRequestsService) {}

  @RequireScope('registry:read')
  @Get()
  @ApiOperation({
    summary: 'List deployment requests',
    description: 'Newest first; `status=pending` for those waiting for approval. Next page: `after` = `last_id`.',
  })
  @ApiOkResponse({ type: DeploymentRequestListDto })
  @ApiErrors(400)
  list(@CurrentProject() caller: ProjectPrincipal, @Query() query: DeploymentRequestsQuery): Promise<DeploymentRequestListDto> {
    return this.requests.list(caller.projectId, query);
  }

  @RequireScope('registry:read')
  @Get(':id')
  @ApiOperation({ summary: 'Get a deployment request' })
  @ApiOkResponse({ type: DeploymentRequestDto })
  @ApiErrors(404)
  get(@CurrentProject() caller: ProjectPrincipal, @Param('id') id: string): Promise<DeploymentRequestDto> {
    return this.requests.get(caller.projectId, id);
  }

  @Idempotent()
  @RequireScope('deploy')
  @Post(':id/approve')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Approve a deployment request',
    description: `Deploys what it asks for, as a direct deploy would (the deploy gate included), in one transaction with the approval. ${DECIDERS} A deploy that fails (400, or the gate's 409) leaves the request pending.`,
  })
  @ApiOkResponse({ type: DeploymentRequestDto })
  @ApiErrors(400, 404, 409)
  approve(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('id') id: string,
    @Body() dto: DecideDeploymentRequestDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<DeploymentRequestDto> {
    return this.requests.decide(caller, id, 'approve', dto.comment, tx);
  }

  @Idempotent()
  @RequireScope('deploy')
  @Post(':id/reject')
  @HttpCode(200)
  @ApiOperation({ summary: 'Reject a deployment request', description: `Nothing is deployed. ${DECIDERS}` })
  @ApiOkResponse({ type: DeploymentRequestDto })
  @ApiErrors(400, 404, 409)
  reject(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('id') id: string,
    @Body() dto: DecideDeploymentRequestDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<DeploymentRequestDto> {
    return this.requests.decide(caller, id, 'reject', dto.comment, tx);
  }

  @Idempotent()
  @RequireScope('deploy')
  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel a deployment request',
    description: 'By whoever asked (the same person or key; anyone else: 403); the request must still be pending (409).',
  })
  @ApiOkResponse({ type: DeploymentRequestDto })
  @ApiErrors(400, 404, 409)
  cancel(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('id') id: string,
    @Body() dto: DecideDeploymentRequestDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<DeploymentRequestDto> {
    return this.requests.decide(caller, id, 'cancel', dto.comment, tx);
  }
}
