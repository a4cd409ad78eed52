import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';

import { CurrentProject, RequireScope } from '../auth/auth.decorators';
import { ProjectPrincipal } from '../auth/principal';
import { Wire, WireRequest } from '../common/http/wire-request';
import { IdempotencyInCore } from '../idempotency/idempotency.interceptor';
import { BUDGET_RESPONSE_HEADERS } from '../limits/budget-headers';
import { CACHE_RESPONSE_HEADERS, CACHE_TTL_API_HEADER } from '../response-cache/response-cache-headers';
import { ChatCompletionsTransport } from './chat-completions.transport';
import { ChatCompletionsBodyDto } from './dto/chat-completions-body.dto';
import { CHAT_COMPLETION_SCHEMA, OPENAI_ERROR_SCHEMA } from './openai-swagger';

/** OpenAI's chat completions on Parley's registry and providers (docs/openai-compatibility.md). */
@ApiTags('OpenAI-compatible')
@ApiSecurity('api-key')
@IdempotencyInCore()
@RequireScope('invoke')
@Controller('v1/chat')
export class ChatCompletionsController {
  constructor(private readonly transport: ChatCompletionsTransport) {}

  @Post('completions')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create a chat completion (OpenAI-compatible)',
    description:
      'model: `<slug>[@<environment>[:<version>]]` (a deployment) or `<provider>/<model>` (a direct call). Streams OpenAI chunks when stream is true.',
  })
  @ApiHeader({ name: 'x-parley-do-not-record', required: false, description: '"true": record no prompt or reply text in logs' })
  @ApiHeader(CACHE_TTL_API_HEADER)
  @ApiOkResponse({
    schema: CHAT_COMPLETION_SCHEMA,
    description: 'chat.completion, or text/event-stream of chat.completion.chunk events; assistants send x-parley-thread-id',
    headers: { ...BUDGET_RESPONSE_HEADERS, ...CACHE_RESPONSE_HEADERS },
  })
  @ApiResponse({ status: 400, schema: OPENAI_ERROR_SCHEMA, description: 'invalid or unsupported field, named in error.param' })
  @ApiResponse({ status: 401, schema: OPENAI_ERROR_SCHEMA, description: 'invalid API key' })
  @ApiResponse({ status: 404, schema: OPENAI_ERROR_SCHEMA, description: 'unknown model (code model_not_found) or thread' })
  @ApiResponse({
    status: 429,
    schema: OPENAI_ERROR_SCHEMA,
    description: "rate limited (Retry-After), or a budget exhausted (`type` and `code` insufficient_quota: the SDKs' RateLimitError)",
  })
  @ApiResponse({ status: 502, schema: OPENAI_ERROR_SCHEMA, description: 'the provider failed (504: timed out)' })
  create(
    @CurrentProject() caller: ProjectPrincipal,
    @Body() body: ChatCompletionsBodyDto,
    @Wire() wire: WireRequest,
    @Res() res: Response,
  ): Promise<void> {
    return this.transport.create(caller, body, wire, res);
  }
}
