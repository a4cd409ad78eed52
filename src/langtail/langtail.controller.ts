import { Controller, Get, NotFoundException, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../auth/auth.decorators';
import { ProjectPrincipal } from '../auth/principal';
import { Wire, WireRequest } from '../common/http/wire-request';
import { ApiErrors } from '../common/swagger/error-responses';
import { LangtailService } from './langtail.service';
import { LANGTAIL_DEPLOYMENTS_SCHEMA, PLAYGROUND_STATE_SCHEMA } from './langtail.swagger';

/** `?v=` as the invoke path reads it: a positive integer, anything else pins nothing that exists. */
const versionOf = (v: unknown): number | undefined => (v === undefined ? undefined : /^\d{1,10}$/.test(String(v)) ? Number(v) : -1);

@ApiTags('langtail SDK')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@RequireScope('registry:read')
@Controller()
export class LangtailController {
  constructor(private readonly langtail: LangtailService) {}

  @Get('project-prompt/:slug/:environment')
  @ApiOperation({
    summary: "A deployed prompt's configuration (langtail SDK prompts.get)",
    description:
      "Template, model settings and variable defaults of what `slug` runs in `environment` in the key's project; never provider keys.",
  })
  @ApiParam({ name: 'slug', example: 'demo-prompt' })
  @ApiParam({ name: 'environment', example: 'production' })
  @ApiQuery({ name: 'v', required: false, description: 'a version number instead of the deployed one' })
  @ApiOkResponse({ schema: PLAYGROUND_STATE_SCHEMA })
  @ApiResponse({
    status: 404,
    description: 'no such prompt, environment, deployment or version',
    schema: { type: 'object', properties: { error: { type: 'string', example: 'Prompt deployment not found' } } },
  })
  get(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('slug') slug: string,
    @Param('environment') environment: string,
    @Query('v') v?: string,
  ) {
    return this.langtail.promptConfig(caller.projectId, slug, environment, versionOf(v));
  }

  /**
   * What the langtail SDK's `prompts.get` sends when `workspace` and `project` are set. Four
   * segments like the invoke route: LangtailModule is registered after every fixed route (see
   * app.module.ts). Another workspace or project than the key's answers the 404 an unknown route
   * answers, so an unknown four-segment GET still looks unknown.
   */
  @Get(':workspace/:project/:slug/:environment')
  @ApiOperation({
    summary: "A deployed prompt's configuration on the workspace/project path (langtail SDK prompts.get with workspace and project)",
    description: "As `GET /project-prompt/{slug}/{environment}`; `workspace` and `project` must be the key's (else 404).",
  })
  @ApiParam({ name: 'slug', example: 'demo-prompt' })
  @ApiParam({ name: 'environment', example: 'production' })
  @ApiQuery({ name: 'v', required: false, description: 'a version number instead of the deployed one' })
  @ApiOkResponse({ schema: PLAYGROUND_STATE_SCHEMA })
  @ApiResponse({ status: 404, description: "not the key's workspace/project, or no such prompt, environment, deployment or version" })
  getScoped(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('workspace') workspace: string,
    @Param('project') project: string,
    @Param('slug') slug: string,
    @Param('environment') environment: string,
    @Wire() wire: WireRequest,
    @Query('v') v?: string,
  ) {
    if (workspace !== caller.workspaceSlug || project !== caller.projectSlug)
      throw new NotFoundException(`Cannot GET ${wire.url.split('?')[0]}`);
    return this.langtail.promptConfig(caller.projectId, slug, environment, versionOf(v));
  }

  @Get('list-deployments')
  @ApiOperation({ summary: "The key's project's current deployments (langtail SDK prompts.listDeployments)" })
  @ApiOkResponse({ schema: LANGTAIL_DEPLOYMENTS_SCHEMA })
  list(@CurrentProject() caller: ProjectPrincipal) {
    return this.langtail.listDeployments(caller.projectId);
  }
}
