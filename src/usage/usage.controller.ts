import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { AdminOrProject, CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { Principal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { UsageQuery, UsageReportDto } from './dto/usage.dto';
import { UsageService } from './usage.service';

@ApiTags('Usage')
@ApiSecurity('api-key')
@ApiSecurity('admin-key')
@ApiErrors(400, 401, 403)
@AdminOrProject()
@RequireScope('usage:read')
@Controller('v2/usage')
export class UsageController {
  constructor(private readonly usage: UsageService) {}

  @Get()
  @ApiOperation({
    summary: 'Calls, tokens by kind, cost and latency per time bucket',
    description:
      'From the hourly usage rollups (never the request logs), in UTC hour or day buckets, grouped by the dimensions in group_by. ' +
      'A project key reports on its own project; the admin key on any (workspace, project filters) and adds totals per workspace. docs/usage.md',
  })
  @ApiOkResponse({ type: UsageReportDto })
  report(@CurrentPrincipal() caller: Principal, @Query() query: UsageQuery): Promise<UsageReportDto> {
    return this.usage.report(caller, query);
  }
}
