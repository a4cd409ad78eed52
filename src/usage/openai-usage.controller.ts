import { applyDecorators, Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { AdminOnly, CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import type { AdminPrincipal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { OpenAIUsageService } from './openai-usage.service';

const PAGE = {
  type: 'object',
  properties: {
    object: { type: 'string', enum: ['page'] },
    data: { type: 'array', items: { type: 'object' } },
    has_more: { type: 'boolean' },
    next_page: { type: 'string', nullable: true },
  },
};
const TimeQueries = () =>
  applyDecorators(
    ApiQuery({ name: 'start_time', required: true, description: 'Unix seconds, inclusive' }),
    ApiQuery({ name: 'end_time', required: false, description: 'Unix seconds, exclusive; default now' }),
    ApiQuery({ name: 'project_ids', required: false, isArray: true, type: String }),
    ApiQuery({ name: 'group_by', required: false, isArray: true, type: String }),
    ApiQuery({ name: 'limit', required: false, description: 'buckets per page' }),
    ApiQuery({ name: 'page', required: false, description: 'next_page of the previous answer' }),
  );

@ApiTags('OpenAI: usage and costs')
@ApiSecurity('admin-key')
@ApiErrors(400, 401, 403)
@AdminOnly()
@RequireScope('usage:read')
@Controller('v1/organization')
export class OpenAIUsageController {
  constructor(private readonly usage: OpenAIUsageService) {}

  @Get('usage/completions')
  @ApiOperation({
    summary: "OpenAI's completions usage (tokens, cached tokens, requests) per 1h or 1d bucket, from Parley's rollups (docs/usage.md)",
  })
  @ApiQuery({ name: 'bucket_width', required: false, enum: ['1h', '1d'] })
  @TimeQueries()
  @ApiOkResponse({ schema: PAGE })
  completions(@CurrentPrincipal() caller: AdminPrincipal, @Query() query: Record<string, unknown>) {
    return this.usage.completions(caller, query);
  }

  @Get('costs')
  @ApiOperation({ summary: "OpenAI's costs (USD) per day, by project and line item (the model), from Parley's rollups (docs/usage.md)" })
  @ApiQuery({ name: 'bucket_width', required: false, enum: ['1d'] })
  @TimeQueries()
  @ApiOkResponse({ schema: PAGE })
  costs(@CurrentPrincipal() caller: AdminPrincipal, @Query() query: Record<string, unknown>) {
    return this.usage.costs(caller, query);
  }
}
