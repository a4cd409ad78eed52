import { Body, Controller, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { InstanceAdminOnly, RequireScope } from '../auth/auth.decorators';
import { ApiErrors } from '../common/swagger/error-responses';
import { ApiKeyBudgetDto, ProjectBudgetsDto } from './dto/budgets.dto';
import { ApiKeyLimitsDto, LimitValuesDto, ProjectLimitsDto, SetProjectLimitsDto } from './dto/limits.dto';
import { LimitSettingsService } from './limit-settings.service';

@ApiTags('Admin: limits')
@ApiSecurity('admin-key')
@ApiErrors(401, 403, 404)
@InstanceAdminOnly()
@RequireScope('keys:manage')
@Controller('v2/workspaces/:workspace/projects/:project')
export class LimitsController {
  constructor(private readonly settings: LimitSettingsService) {}

  @Get('limits')
  @ApiOperation({ summary: 'The limits of a project, of its keys by default, and of keys with their own' })
  @ApiOkResponse({ type: ProjectLimitsDto })
  getProjectLimits(@Param('workspace') workspace: string, @Param('project') project: string): Promise<ProjectLimitsDto> {
    return this.settings.getProjectLimits(workspace, project);
  }

  @Put('limits')
  @HttpCode(200)
  @ApiOperation({ summary: "Replace the project's limits and its default limits for keys" })
  @ApiOkResponse({ type: ProjectLimitsDto })
  @ApiErrors(400)
  setProjectLimits(
    @Param('workspace') workspace: string,
    @Param('project') project: string,
    @Body() dto: SetProjectLimitsDto,
  ): Promise<ProjectLimitsDto> {
    return this.settings.setProjectLimits(workspace, project, dto);
  }

  @Get('api-keys/:keyId/limits')
  @ApiOperation({ summary: 'The limits of one key' })
  @ApiOkResponse({ type: ApiKeyLimitsDto })
  getKeyLimits(
    @Param('workspace') workspace: string,
    @Param('project') project: string,
    @Param('keyId') keyId: string,
  ): Promise<ApiKeyLimitsDto> {
    return this.settings.getKeyLimits(workspace, project, keyId);
  }

  @Put('api-keys/:keyId/limits')
  @HttpCode(200)
  @ApiOperation({ summary: "Replace one key's own limits (null or absent: the project's default for keys applies)" })
  @ApiOkResponse({ type: ApiKeyLimitsDto })
  @ApiErrors(400)
  setKeyLimits(
    @Param('workspace') workspace: string,
    @Param('project') project: string,
    @Param('keyId') keyId: string,
    @Body() dto: LimitValuesDto,
  ): Promise<ApiKeyLimitsDto> {
    return this.settings.setKeyLimits(workspace, project, keyId, dto);
  }

  @Get('budgets')
  @ApiOperation({
    summary: 'Budgets and spend of the project and of each key, today and this month (UTC)',
    description: 'Spend is counted whether or not a budget is set; amounts are exact USD decimal strings (docs/usage.md, "Budgets").',
  })
  @ApiOkResponse({ type: ProjectBudgetsDto })
  getProjectBudgets(@Param('workspace') workspace: string, @Param('project') project: string): Promise<ProjectBudgetsDto> {
    return this.settings.getProjectBudgets(workspace, project);
  }

  @Get('api-keys/:keyId/budget')
  @ApiOperation({ summary: 'Budgets and spend of one key, today and this month (UTC)' })
  @ApiOkResponse({ type: ApiKeyBudgetDto })
  getKeyBudget(
    @Param('workspace') workspace: string,
    @Param('project') project: string,
    @Param('keyId') keyId: string,
  ): Promise<ApiKeyBudgetDto> {
    return this.settings.getKeyBudget(workspace, project, keyId);
  }
}
