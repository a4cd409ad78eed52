import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../auth/auth.decorators';
import { ProjectPrincipal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { PatchProjectSettingsDto, ProjectSettingsDto } from './project-settings.dto';
import { ProjectSettingsService } from './project-settings.service';

@ApiTags('Project settings')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@Controller('v2/settings')
export class ProjectSettingsController {
  constructor(private readonly settings: ProjectSettingsService) {}

  @RequireScope('registry:read')
  @Get()
  @ApiOperation({ summary: "The project's settings", description: 'docs/embeddings.md, "Project settings".' })
  @ApiOkResponse({ type: ProjectSettingsDto })
  get(@CurrentProject() caller: ProjectPrincipal): Promise<ProjectSettingsDto> {
    return this.settings.get(caller.projectId);
  }

  @RequireScope('registry:write')
  @Patch()
  @ApiOperation({
    summary: "Change the project's settings",
    description: 'Fields left out keep their value. Audited (`settings.updated`); every instance follows at once.',
  })
  @ApiOkResponse({ type: ProjectSettingsDto })
  @ApiErrors(400)
  update(@CurrentProject() caller: ProjectPrincipal, @Body() patch: PatchProjectSettingsDto): Promise<ProjectSettingsDto> {
    return this.settings.update(caller.projectId, patch);
  }
}
