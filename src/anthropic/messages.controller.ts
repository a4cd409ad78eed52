import { Body, Controller, HttpCode, Post, Res, UseFilters } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';

import { CurrentProject, RequireScope } from '../auth/auth.decorators';
import { ProjectPrincipal } from '../auth/principal';
import { Wire, WireRequest } from '../common/http/wire-request';
import { IdempotencyInCore } from '../idempotency/idempotency.interceptor';
import { BUDGET_RESPONSE_HEADERS } from '../limits/budget-headers';
import { CACHE_RESPONSE_HEADERS, CACHE_TTL_API_HEADER } from '../response-cache/response-cache-headers';
import { AnthropicExceptionFilter } from './anthropic-exception.filter';
import { CountTokensBodyDto, MessagesBodyDto } from './dto/messages-body.dto';
import { AnthropicMessagesTransport, type TokensCount } from './messages.transport';

/** Anthropic's error body, as every failure of these routes answers (anthropic-errors.ts). */
const ANTHROPIC_ERROR_SCHEMA = {
  type: 'object',
  required: ['type', 'error', 'request_id'],
  properties: {
    type: { type: 'string', enum: ['error'] },
    error: {
      type: 'object',
      required: ['type', 'message'],
      properties: {
        type: { type: 'string', example: 'invalid_request_error' },
        message: { type: 'string', example: 'max_tokens: Field required' },
      },
    },
    request_id: { type: 'string', nullable: true },
  },
};

const MODEL_DESCRIPTION =
  'model: `<slug>[@<environment>[:<version>]]` (a deployment) or `<provider>/<model>` (a direct call). Point the official `@anthropic-ai/sdk` at Parley with a project key (docs/anthropic-compatibility.md).';

/** Anthropic's Messages API on Parley's registry and providers (docs/anthropic-compatibility.md). */
@ApiTags('Anthropic-compatible')
@ApiSecurity('api-key')
@ApiBearerAuth()
@IdempotencyInCore()
@RequireScope('invoke')
@UseFilters(AnthropicExceptionFilter)
@Controller('v1/messages')
export class AnthropicMessagesController {
  constructor(private readonly transport: AnthropicMessagesTransport) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create a message (Anthropic-compatible)',
    description: `${MODEL_DESCRIPTION} Streams Anthropic's events when stream is true.`,
  })
  @ApiHeader({ name: 'x-parley-do-not-record', required: false, description: '"true": record no prompt or reply text in logs' })
  @ApiHeader(CACHE_TTL_API_HEADER)
  @ApiOkResponse({
    description: "Anthropic's Message, or text/event-stream of its events; assistants send x-parley-thread-id",
    headers: { ...BUDGET_RESPONSE_HEADERS, ...CACHE_RESPONSE_HEADERS },
  })
  @ApiResponse({ status: 400, schema: ANTHROPIC_ERROR_SCHEMA, description: 'invalid or unsupported field, named in the message' })
  @ApiResponse({ status: 401, schema: ANTHROPIC_ERROR_SCHEMA, description: 'invalid API key (authentication_error)' })
  @ApiResponse({ status: 404, schema: ANTHROPIC_ERROR_SCHEMA, description: 'unknown model or thread (not_found_error)' })
  @ApiResponse({ status: 429, schema: ANTHROPIC_ERROR_SCHEMA, description: 'rate limited or a budget exhausted (Retry-After)' })
  @ApiResponse({ status: 502, schema: ANTHROPIC_ERROR_SCHEMA, description: 'the provider failed (api_error; 504 timeout_error)' })
  create(
    @CurrentProject() caller: ProjectPrincipal,
    @Body() body: MessagesBodyDto,
    @Wire() wire: WireRequest,
    @Res() res: Response,
  ): Promise<void> {
    return this.transport.create(caller, body, wire, res);
  }

  @Post('count_tokens')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Count the input tokens of a would-be message (Anthropic-compatible)',
    description: `${MODEL_DESCRIPTION} Exact for Anthropic (its count endpoint), OpenAI models (their tokenizer) and local/echo, an estimate otherwise. Nothing is called, stored or logged.`,
  })
  @ApiOkResponse({ schema: { type: 'object', required: ['input_tokens'], properties: { input_tokens: { type: 'integer' } } } })
  @ApiResponse({ status: 400, schema: ANTHROPIC_ERROR_SCHEMA, description: 'invalid or unsupported field, named in the message' })
  @ApiResponse({ status: 404, schema: ANTHROPIC_ERROR_SCHEMA, description: 'unknown model (not_found_error)' })
  countTokens(
    @CurrentProject() caller: ProjectPrincipal,
    @Body() body: CountTokensBodyDto,
    @Wire() wire: WireRequest,
  ): Promise<TokensCount> {
    return this.transport.countTokens(caller, body, wire);
  }
}
