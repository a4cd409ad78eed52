import { Body, Controller, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { AdminOnly, RequireScope } from '../../auth/auth.decorators';
import { ApiErrors } from '../../common/swagger/error-responses';
import { PricesDto, SetPricesDto } from './dto/prices.dto';
import { PriceSettingsService } from './price-settings.service';

@ApiTags('Admin: prices')
@ApiSecurity('admin-key')
@ApiErrors(401, 403, 404)
@AdminOnly()
@RequireScope('keys:manage')
@Controller('v2/workspaces/:workspace/projects/:project/prices')
export class PricesController {
  constructor(private readonly settings: PriceSettingsService) {}

  @Get()
  @ApiOperation({ summary: "The project's price overrides (every other model is priced from the price table)" })
  @ApiOkResponse({ type: PricesDto })
  get(@Param('workspace') workspace: string, @Param('project') project: string): Promise<PricesDto> {
    return this.settings.get(workspace, project);
  }

  @Put()
  @HttpCode(200)
  @ApiOperation({
    summary: "Replace the project's price overrides (USD per million tokens, per provider and model); they price calls made from now on",
  })
  @ApiBody({ type: SetPricesDto })
  @ApiOkResponse({ type: PricesDto })
  @ApiErrors(400)
  set(@Param('workspace') workspace: string, @Param('project') project: string, @Body() body: unknown): Promise<PricesDto> {
    return this.settings.set(workspace, project, body);
  }
}
