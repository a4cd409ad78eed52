import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../auth/auth.decorators';
import { ProjectPrincipal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { ProjectBudgetsDto } from './dto/budgets.dto';
import { LimitSettingsService } from './limit-settings.service';

/** A project key reads its own project's budgets (setting them stays the admin's: docs/usage.md, "Budgets"). */
@ApiTags('Usage')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@RequireScope('usage:read')
@Controller('v2/usage/budgets')
export class BudgetsController {
  constructor(private readonly settings: LimitSettingsService) {}

  @Get()
  @ApiOperation({
    summary: "Budgets and spend of the key's project and of each of its keys, today and this month (UTC)",
    description:
      'The answer of the admin API\'s GET /v2/workspaces/{workspace}/projects/{project}/budgets, for the calling key\'s project (docs/usage.md, "Budgets").',
  })
  @ApiOkResponse({ type: ProjectBudgetsDto })
  budgets(@CurrentProject() caller: ProjectPrincipal): Promise<ProjectBudgetsDto> {
    return this.settings.getProjectBudgets(caller.workspaceSlug, caller.projectSlug);
  }
}
