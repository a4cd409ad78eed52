import { Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../../auth/auth.decorators';
import { ProjectPrincipal } from '../../auth/principal';
import { ApiErrors } from '../../common/swagger/error-responses';
import { CreateTransaction, InCreateTransaction } from '../../idempotency/create-transaction';
import { Idempotent } from '../../idempotency/idempotency.interceptor';
import { DeploymentRequestsService } from '../deployments/deployment-requests.service';
import { DeploymentDto } from '../deployments/dto/deployment.dto';
import { DeploymentRequestDto } from '../deployments/dto/deployment-request.dto';
import { PromptDto } from './dto/prompt.dto';
import { PromptLifecycleService } from './prompt-lifecycle.service';

/** Archiving, restoring and undeploying (docs/registry.md, "Archiving, undeploying, deleting"). */
@ApiTags('Registry: prompts, versions, deployments')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@Controller('v2/prompts')
export class PromptLifecycleController {
  constructor(
    private readonly lifecycle: PromptLifecycleService,
    private readonly requests: DeploymentRequestsService,
  ) {}

  @Idempotent()
  @RequireScope('registry:write')
  @Post(':slug/archive')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Archive a prompt, assistant or embedding entry',
    description:
      'Kept with its versions and deployment history, hidden from the list (GET /v2/prompts?archived=true shows it), and neither invoked ' +
      '(the invoke endpoints answer 404 saying it is archived) nor deployed nor given versions (409) until restored. Only an undeployed one ' +
      'is archived: while it is deployed anywhere, 409 naming the environments (undeploy it there first). Archiving an archived one changes nothing.',
  })
  @ApiOkResponse({ type: PromptDto })
  @ApiErrors(400, 404, 409)
  archive(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('slug') slug: string,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<PromptDto> {
    return this.lifecycle.archive(caller.projectId, slug, tx);
  }

  @Idempotent()
  @RequireScope('registry:write')
  @Post(':slug/restore')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Restore an archived prompt, assistant or embedding entry',
    description: 'It is listed, versioned and deployable again (it comes back deployed nowhere). Restoring a live one changes nothing.',
  })
  @ApiOkResponse({ type: PromptDto })
  @ApiErrors(400, 404)
  restore(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('slug') slug: string,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<PromptDto> {
    return this.lifecycle.restore(caller.projectId, slug, tx);
  }

  @RequireScope('deploy')
  @Delete(':slug/deployments/:environment')
  @ApiOperation({
    summary: 'Undeploy an environment',
    description:
      'Ends what the environment runs: the deployment stays in the history (`current: false`), and a call there is the 404 of an environment ' +
      'never deployed to. In an environment that requires approval it waits instead: 202 with a pending deployment request of action ' +
      '`undeploy` (the same one again while it waits); where keys are barred, a key is refused (403). docs/security.md, "Approvals".',
  })
  @ApiOkResponse({ type: DeploymentDto, description: 'the deployment it ended, as the history now shows it' })
  @ApiResponse({ status: 202, type: DeploymentRequestDto, description: 'the environment requires approval: nothing is undeployed yet' })
  @ApiErrors(404)
  undeploy(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('slug') slug: string,
    @Param('environment') environment: string,
  ): Promise<DeploymentDto | DeploymentRequestDto> {
    return this.requests.undeploy(caller, slug, environment);
  }
}
