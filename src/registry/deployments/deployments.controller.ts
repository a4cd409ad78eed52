import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../../auth/auth.decorators';
import { ProjectPrincipal } from '../../auth/principal';
import { ApiErrors } from '../../common/swagger/error-responses';
import { DeploymentsService } from './deployments.service';
import { DeploymentListDto, DeploymentsQuery } from './dto/deployment.dto';

@ApiTags('Registry: prompts, versions, deployments')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@RequireScope('registry:read')
@Controller('v2/deployments')
export class DeploymentsController {
  constructor(private readonly deployments: DeploymentsService) {}

  @Get()
  @ApiOperation({ summary: 'List current deployments', description: 'What each environment runs now, by slug then environment.' })
  @ApiOkResponse({ type: DeploymentListDto })
  list(@CurrentProject() caller: ProjectPrincipal, @Query() query: DeploymentsQuery): Promise<DeploymentListDto> {
    return this.deployments.listCurrent(caller.projectId, query);
  }
}
