import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Logger, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOkResponse, ApiOperation, ApiQuery, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';

import { CurrentProject, RequireScope } from '../auth/auth.decorators';
import { ProjectPrincipal } from '../auth/principal';
import { sendJson } from '../common/http/send-json';
import { Wire, WireRequest } from '../common/http/wire-request';
import { parseItemListQuery } from '../conversations/conversation-queries';
import { ConversationItemListDto } from '../conversations/dto/conversation.dto';
import { IdempotencyInCore } from '../idempotency/idempotency.interceptor';
import { abortOnClose } from '../invocation/invoke-http';
import { SseResponse } from '../invocation/sse-response';
import { BUDGET_RESPONSE_HEADERS } from '../limits/budget-headers';
import { OPENAI_ERROR_SCHEMA } from '../openai/openai-swagger';
import { CACHE_RESPONSE_HEADERS, CACHE_TTL_API_HEADER } from '../response-cache/response-cache-headers';
import { BackgroundResponsesService } from './background-responses.service';
import { CompactedResponse, CompactionService } from './compaction.service';
import { CompactBodyDto, ResponsesBodyDto } from './dto/responses-body.dto';
import { InputTokenCountAnswer, InputTokensService } from './input-tokens.service';
import { parseRetrieveQuery } from './response-retrieve-query';
import { ResponsesService } from './responses.service';
import { StoredResponsesService } from './stored-responses.service';

/** OpenAI's Responses API on the invocation core (docs/openai-conversations.md, "Responses"). */
@ApiTags('OpenAI: Responses')
@ApiSecurity('api-key')
@ApiBearerAuth()
@IdempotencyInCore()
@Controller('v1/responses')
export class ResponsesController {
  private readonly logger = new Logger('Responses');

  constructor(
    private readonly responses: ResponsesService,
    private readonly stored: StoredResponsesService,
    private readonly background: BackgroundResponsesService,
    private readonly inputTokens: InputTokensService,
    private readonly compaction: CompactionService,
  ) {}

  @RequireScope('invoke')
  @Post('input_tokens')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Count the input tokens of a would-be response',
    description:
      'The body of `POST /v1/responses`; exact for OpenAI models (their tokenizer), Anthropic (its count endpoint) and local/echo, an estimate otherwise. Nothing is called, stored or logged.',
  })
  @ApiOkResponse({
    schema: {
      type: 'object',
      required: ['object', 'input_tokens'],
      properties: { object: { type: 'string', enum: ['response.input_tokens'] }, input_tokens: { type: 'integer' } },
    },
  })
  countInputTokens(
    @CurrentProject() caller: ProjectPrincipal,
    @Body() body: ResponsesBodyDto,
    @Wire() wire: WireRequest,
  ): Promise<InputTokenCountAnswer> {
    return this.inputTokens.count(caller, body, wire);
  }

  @RequireScope('invoke')
  @Post('compact')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Compact a conversation',
    description:
      "Summarizes `input` / `previous_response_id`, or Parley's `conversation` in place, with the compaction prompt (RESPONSES_COMPACTION_PROMPT, else Parley's instructions on `model`). A conversation's covered items stay listed with `compacted_by`; the model gets the summary instead.",
  })
  @ApiHeader(CACHE_TTL_API_HEADER)
  @ApiOkResponse({
    description: 'OpenAI\'s CompactedResponse: `{id, object: "response.compaction", created_at, output: [compaction item], usage}`',
  })
  compact(@CurrentProject() caller: ProjectPrincipal, @Body() body: CompactBodyDto, @Wire() wire: WireRequest): Promise<CompactedResponse> {
    return this.compaction.compact(caller, body, wire);
  }

  @RequireScope('invoke')
  @Post()
  @ApiOperation({
    summary: 'Create a model response',
    description: 'JSON, or with `stream: true` Server-Sent Events of the typed response events.',
  })
  @ApiHeader(CACHE_TTL_API_HEADER)
  @ApiOkResponse({ description: "OpenAI's Response object", headers: { ...BUDGET_RESPONSE_HEADERS, ...CACHE_RESPONSE_HEADERS } })
  @ApiResponse({
    status: 429,
    schema: OPENAI_ERROR_SCHEMA,
    description: 'rate limited (Retry-After), or a budget exhausted (`type` and `code` insufficient_quota)',
  })
  async create(
    @CurrentProject() caller: ProjectPrincipal,
    @Body() body: ResponsesBodyDto,
    @Wire() request: WireRequest,
    @Res() res: Response,
  ): Promise<void> {
    const signal = abortOnClose(res);
    // A background response outlives its client: leaving only stops following its events.
    const result =
      body.background === true
        ? await this.background.create(caller, body, request, signal)
        : await this.responses.create(caller, body, request, signal);
    for (const [name, value] of Object.entries(result.headers)) res.setHeader(name, value);
    if (result.kind === 'response') {
      // Not express's res.json: its ETag hash over every answer was 7 % of this route's CPU (docs/performance.md).
      sendJson(res, HttpStatus.OK, result.response);
      return;
    }
    await this.sendEvents(res, result.events);
  }

  @RequireScope('threads:read')
  @Get(':responseId')
  @ApiOperation({
    summary: 'Retrieve a stored response',
    description:
      'With `stream=true`: Server-Sent Events of its stored stream events after `starting_after`, then the live ones until its end (on any instance).',
  })
  @ApiQuery({ name: 'stream', required: false, enum: ['true', 'false'] })
  @ApiQuery({ name: 'starting_after', required: false, schema: { type: 'integer', minimum: -1 } })
  @ApiOkResponse({ description: "OpenAI's Response object, as answered (or as it stands while queued or in progress)" })
  async retrieve(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('responseId') id: string,
    @Query() query: Record<string, unknown>,
    @Res() res: Response,
  ): Promise<void> {
    const { stream, startingAfter } = parseRetrieveQuery(query);
    if (!stream) {
      res.status(HttpStatus.OK).json(await this.stored.retrieve(caller, id));
      return;
    }
    await this.sendEvents(res, await this.background.stream(caller, id, startingAfter, abortOnClose(res)));
  }

  @RequireScope('invoke')
  @Post(':responseId/cancel')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel a background response',
    description:
      'Queued or in progress: `cancelled`, the upstream call aborted. Finished: answered as it is. Not created with `background: true`: 400.',
  })
  @ApiOkResponse({ description: "OpenAI's Response object" })
  cancel(@CurrentProject() caller: ProjectPrincipal, @Param('responseId') id: string): Promise<Record<string, unknown>> {
    return this.background.cancel(caller, id);
  }

  @RequireScope('threads:write')
  @Delete(':responseId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete a stored response', description: 'Soft delete: the row stays; the response is then not found.' })
  delete(@CurrentProject() caller: ProjectPrincipal, @Param('responseId') id: string): Promise<unknown> {
    return this.stored.delete(caller, id);
  }

  private async sendEvents(res: Response, events: AsyncIterable<unknown>): Promise<void> {
    const sse = new SseResponse(res);
    sse.open();
    try {
      for await (const event of events) {
        if (sse.closed) break;
        await sse.send(event);
      }
    } catch (err) {
      this.logger.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    }
    sse.done();
  }

  @RequireScope('threads:read')
  @Get(':responseId/input_items')
  @ApiOperation({ summary: "List a stored response's input items" })
  @ApiQuery({ name: 'after', required: false })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } })
  @ApiQuery({ name: 'order', required: false, enum: ['asc', 'desc'] })
  @ApiOkResponse({ type: ConversationItemListDto })
  inputItems(
    @CurrentProject() caller: ProjectPrincipal,
    @Param('responseId') id: string,
    @Query() query: Record<string, unknown>,
  ): Promise<ConversationItemListDto> {
    return this.stored.inputItems(caller, id, parseItemListQuery(query));
  }
}
