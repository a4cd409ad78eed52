import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../auth/auth.decorators';
import { ProjectPrincipal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { ExperimentResultsDto } from './experiment-results.dto';
import { ExperimentResultsService } from './experiment-results.service';

/** Per-arm results of an environment's current deployment (docs/experiments.md, "Per-arm results"). */
@ApiTags('Experiments')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@RequireScope('usage:read')
@Controller('v2/prompts')
export class ExperimentResultsController {
  constructor(private readonly experiments: ExperimentResultsService) {}

  @Get(':slug/deployments/:environment/results')
  @ApiOperation({
    summary: "Per-arm results of an environment's deployment",
    description:
      'For the current deployment (a split, or a plain deployment as one arm): per version, calls, errors and the error rate with its ' +
      '95 % interval, p50/p95 latency, tokens, cost and cost per call since the deployment (counted from the start of its UTC hour), ' +
      'and its feedback; then each arm against the control, with a verdict only when the 95 % interval of the difference excludes 0. ' +
      'From the usage and feedback rollups only.',
  })
  @ApiParam({ name: 'slug', example: 'support-reply' })
  @ApiParam({ name: 'environment', example: 'production' })
  @ApiOkResponse({ type: ExperimentResultsDto })
  @ApiErrors(404)
  results(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('slug') slug: string,
    @Param('environment') environment: string,
  ): Promise<ExperimentResultsDto> {
    return this.experiments.results(caller.projectId, slug, environment);
  }
}
