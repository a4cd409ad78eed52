import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../auth/auth.decorators';
import { ProjectPrincipal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { FeedbackBodyDto, FeedbackDto, FeedbackListDto, FeedbackQuery, FeedbackSummaryDto, FeedbackSummaryQuery } from './feedback.dto';
import { FeedbackService } from './feedback.service';

/** Feedback on logs, threads and responses, and its summary per version (docs/experiments.md, "Feedback"). */
@ApiTags('Feedback')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@Controller('v2/feedback')
export class FeedbackController {
  constructor(private readonly feedback: FeedbackService) {}

  // Sending it again replaces it: the same state, so a retry's key needs no create transaction.
  @Idempotent('repeatable')
  @RequireScope('feedback:write')
  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Give feedback on a call',
    description:
      'On a request log (`logId`), a thread (`threadId`: its latest logged turn) or a stored response (`responseId`). ' +
      'Sent again with the same target, name and key, it replaces the value and comment (201, same id).',
  })
  @ApiBody({ type: FeedbackBodyDto })
  @ApiCreatedResponse({ type: FeedbackDto })
  @ApiErrors(400, 404)
  submit(@CurrentProject() caller: ProjectPrincipal, @Body() body: FeedbackBodyDto): Promise<FeedbackDto> {
    return this.feedback.submit(caller, body);
  }

  @RequireScope('logs:read')
  @Get()
  @ApiOperation({ summary: 'List feedback', description: 'Newest first; filters combine with AND.' })
  @ApiOkResponse({ type: FeedbackListDto })
  @ApiErrors(400)
  list(@CurrentProject() caller: ProjectPrincipal, @Query() query: FeedbackQuery): Promise<FeedbackListDto> {
    return this.feedback.list(caller, query);
  }

  @RequireScope('logs:read')
  @Get('summary')
  @ApiOperation({
    summary: "Summarize a prompt's feedback per version",
    description: 'Per version and name: count, mean and its 95 % confidence interval (Wilson for true/false, Student t for numbers).',
  })
  @ApiOkResponse({ type: FeedbackSummaryDto })
  @ApiErrors(400)
  summary(@CurrentProject() caller: ProjectPrincipal, @Query() query: FeedbackSummaryQuery): Promise<FeedbackSummaryDto> {
    return this.feedback.summary(caller, query);
  }
}
