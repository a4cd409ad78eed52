import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../auth/auth.decorators';
import { ProjectPrincipal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { RequestLogDetailDto, RequestLogDto, RequestLogListDto, RequestLogQuery } from './dto/request-log.dto';
import { RequestLogsService } from './request-logs.service';

@ApiTags('Request logs')
// The log without its list preview stays a named schema (the console and clients generated from the document use it).
@ApiExtraModels(RequestLogDto)
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@RequireScope('logs:read')
@Controller('v2/logs')
export class RequestLogsController {
  constructor(private readonly logs: RequestLogsService) {}

  @Get()
  @ApiOperation({
    summary: 'List request logs',
    description:
      'One log per invoke, newest first; filters combine with AND. Each carries a `preview` of its input and reply (never for doNotRecord).',
  })
  @ApiOkResponse({ type: RequestLogListDto })
  @ApiErrors(400)
  list(@CurrentProject() caller: ProjectPrincipal, @Query() query: RequestLogQuery): Promise<RequestLogListDto> {
    return this.logs.list(caller, query);
  }

  @Get(':logId')
  @ApiOperation({
    summary: 'Get a request log',
    description:
      'The log with the provider request and response when they were recorded (never under doNotRecord), and the thread messages the call added.',
  })
  @ApiOkResponse({ type: RequestLogDetailDto })
  @ApiErrors(404)
  get(@CurrentProject() caller: ProjectPrincipal, @Param('logId') logId: string): Promise<RequestLogDetailDto> {
    return this.logs.get(caller, logId);
  }
}
