import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { z } from 'zod';

import { PageQuery } from '../../common/pagination';
import { MatchesSchema, Optional } from '../../common/validation';
import { RequestLogObjectDto } from '../../threads/dto/request-log-object.dto';

export class LogUsageDto {
  @ApiProperty({ type: Number, nullable: true }) prompt_tokens: number | null;
  @ApiProperty({ type: Number, nullable: true }) completion_tokens: number | null;
  @ApiProperty({ type: Number, nullable: true }) total_tokens: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'prompt tokens neither read from nor written to a prompt cache' })
  uncached_input_tokens: number | null;
  @ApiProperty({ type: Number, nullable: true, description: "prompt tokens read from the provider's prompt cache" }) cache_read_tokens:
    number | null;
  @ApiProperty({ type: Number, nullable: true, description: "prompt tokens written to the provider's prompt cache" }) cache_write_tokens:
    number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'completion tokens spent reasoning' }) reasoning_tokens: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'completion tokens of the answer, reasoning excluded' }) output_tokens:
    number | null;
  @ApiProperty({
    description:
      'true when the call ended before the provider reported its final usage (a stream cut mid-way): the counts are what was known',
  })
  partial: boolean;
}

/** The spec's request-log object plus what operating the service needs. */
export class RequestLogDto extends RequestLogObjectDto {
  @ApiProperty({ enum: ['prompt', 'assistant', 'embedding'] }) kind: string;
  @ApiProperty({ type: Number, nullable: true, description: 'version number invoked' }) version: number | null;
  @ApiProperty({ type: String, nullable: true }) provider: string | null;
  @ApiProperty({ type: String, nullable: true }) model: string | null;
  @ApiProperty({ description: 'HTTP status Parley answered with; 499 when the client went away mid-stream' }) status: number;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
  @ApiProperty({ description: 'milliseconds from request to the last byte' }) latencyMs: number;
  @ApiProperty({ type: Number, nullable: true, description: 'milliseconds to the first streamed token' }) timeToFirstTokenMs: number | null;
  @ApiProperty({ type: LogUsageDto }) usage: LogUsageDto;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '0.00275',
    description: 'cost in USD (decimal string); null when no price is known for the model (docs/usage.md)',
  })
  costUsd: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the price the cost used: the price table and its entry, or an override' })
  priceRef: string | null;
  @ApiProperty({
    description:
      'true when the exact response cache answered (docs/routing.md, "Response cache"): no provider call, `costUsd` "0", `usage` the stored answer\'s tokens',
  })
  cacheHit: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '4bf92f3577b34da6a3ce929d0e0e4736',
    description:
      "the W3C trace id of the call (32 hex digits): the caller's `traceparent`'s, or the trace of Parley's own spans while the OpenTelemetry export is on; null otherwise (docs/observability.md)",
  })
  traceId: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'http://localhost:16686/trace/4bf92f3577b34da6a3ce929d0e0e4736',
    description: "the trace in the operator's trace viewer (PARLEY_TRACE_URL_TEMPLATE with the trace id); null without either",
  })
  traceUrl: string | null;
}

/** GET /v2/logs/{id}: the list item plus what was sent and received, and the thread messages it added. */
/** One attempt of a routed call (docs/routing.md, "Every attempt recorded"). */
export class RequestLogAttemptDto {
  @ApiProperty({ description: 'the provider the attempt called' }) provider: string;
  @ApiProperty() model: string;
  @ApiProperty({ description: '200, or the status Parley would have answered with had this attempt been the only one' }) status: number;
  @ApiProperty({ description: "milliseconds from the attempt's start to its end" }) latencyMs: number;
  @ApiProperty({ required: false, description: "streams: milliseconds from the attempt's start to its first content event" })
  ttftMs?: number;
  @ApiProperty({ required: false, description: 'prompt tokens the provider reported for this attempt' }) inputTokens?: number;
  @ApiProperty({ required: false, description: 'completion tokens the provider reported for this attempt' }) outputTokens?: number;
  @ApiProperty({ required: false, description: 'USD as a decimal string; absent without usage or a known price' }) costUsd?: string;
  @ApiProperty({ required: false, description: "the failure (doNotRecord: without the upstream's own text)" }) error?: string;
  @ApiProperty({
    required: false,
    description:
      "why the failure falls back, one of a routing block's fallbackOn reasons (rate_limit, server_error, timeout, connection, first_token_timeout); absent for failures that never do (the caller's own 4xx)",
  })
  reason?: string;
}

export class RequestLogDetailDto extends RequestLogDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'the body sent to the provider, thread history included; null when doNotRecord or when no provider was called',
  })
  request: Record<string, unknown> | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: "the provider's answer (the assembled completion for a stream); null when doNotRecord or on failure",
  })
  response: Record<string, unknown> | null;
  @ApiProperty({
    type: [String],
    description:
      'ids of the thread messages this call appended (its messages, then the reply), in order; empty for prompts and failed calls',
  })
  threadMessageIds: string[];
  @ApiProperty({
    type: [RequestLogAttemptDto],
    nullable: true,
    description:
      "a routed call's attempts in order, the serving (or last failing) one last (docs/routing.md); null for a call without routing",
  })
  attempts: RequestLogAttemptDto[] | null;
}

/** A few words of what was said, for a list (docs/decisions.md, "Request log storage"). */
export class RequestLogPreviewDto {
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Can I pause my subscription while I am travelling in August?',
    description:
      "the last user message sent (the rendered template with the caller's messages), its text with whitespace folded, at most 160 characters (`…` when cut); null when there is none, and always under doNotRecord",
  })
  input: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Of course! Go to Account → Subscription and choose "Pause" for up to three months.',
    description:
      "the reply's text the same way (`calls <name>, …` for a reply that only calls tools; an embedding's vector count and size); null for a failed call, and always under doNotRecord",
  })
  output: string | null;
}

/** A log as GET /v2/logs lists it: the log, and a preview of its input and reply. */
export class RequestLogListItemDto extends RequestLogDto {
  @ApiProperty({ type: RequestLogPreviewDto }) preview: RequestLogPreviewDto;
}

export class RequestLogListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [RequestLogListItemDto], description: 'newest first' }) data: RequestLogListItemDto[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ type: String, nullable: true }) first_id: string | null;
  @ApiProperty({ type: String, nullable: true }) last_id: string | null;
}

/** Bounds of a search: its length, and its words (runs of letters and digits), each a lookup in the index. */
export const SEARCH_MAX_CHARS = 200;
export const SEARCH_MAX_WORDS = 16;
const searchSchema = z
  .string()
  .max(SEARCH_MAX_CHARS, `at most ${SEARCH_MAX_CHARS} characters`)
  .refine((q) => (q.match(/[\p{L}\p{N}]+/gu)?.length ?? 0) <= SEARCH_MAX_WORDS, `at most ${SEARCH_MAX_WORDS} words`);

export class RequestLogQuery extends PageQuery {
  @Optional()
  @MatchesSchema(searchSchema, {
    example: 'refund -cancelled "order 42"',
    description:
      'full-text search of the input (the request body), the output (the reply text) and the error message, combined with the other filters: ' +
      'words (all of them), "a phrase", `or`, `-word` to exclude; whole words, any case, no stemming. ' +
      'A search without words matches nothing. Not the content of doNotRecord calls, which is not stored',
  })
  q?: string;

  @ApiProperty({ required: false, description: 'prompt or assistant slug' })
  @IsOptional()
  @IsString()
  slug?: string;

  @ApiProperty({ required: false })
  @IsOptional()
  @IsString()
  environment?: string;

  @ApiProperty({ required: false, example: '2', description: "the version number invoked; needs `slug` (a version is a prompt's)" })
  @IsOptional()
  @Matches(/^[1-9][0-9]{0,8}$/, { message: 'version must be a version number' })
  version?: string;

  @ApiProperty({ required: false, example: 'gpt-4o-mini', description: 'the model the provider was asked for' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  model?: string;

  @ApiProperty({ required: false, example: 'openai', description: 'the provider (credential) name the call went to' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  provider?: string;

  @ApiProperty({ required: false, format: 'uuid', description: 'the id of the project API key that made the call (`projectAPIKeyId`)' })
  @IsOptional()
  @IsString()
  keyId?: string;

  @ApiProperty({ required: false, format: 'uuid' })
  @IsOptional()
  @IsString()
  threadId?: string;

  @ApiProperty({
    required: false,
    description: 'the X-Request-Id the call was made with (or the one Parley gave it, echoed in the answer)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  requestId?: string;

  @ApiProperty({
    required: false,
    example: '4bf92f3577b34da6a3ce929d0e0e4736',
    description: "the W3C trace id (32 hex digits) of the call's trace: the calls of one trace (`traceId` of a log)",
  })
  @IsOptional()
  @Matches(/^[0-9a-fA-F]{32}$/, { message: 'traceId must be a trace id of 32 hex digits' })
  traceId?: string;

  @ApiProperty({ required: false, description: '"success" (2xx), "error" (anything else), or an HTTP status such as 502' })
  @IsOptional()
  @Matches(/^(success|error|[1-5][0-9]{2})$/)
  status?: string;

  @ApiProperty({ required: false, format: 'date-time', description: 'started at or after' })
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  @ApiProperty({ required: false, format: 'date-time', description: 'started before' })
  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;

  @ApiProperty({ required: false, description: 'metadata filter "key:value" (value compared as text)', example: 'customer:c_42' })
  @IsOptional()
  @Matches(/^[^:]{1,64}:.{0,512}$/)
  metadata?: string;

  @ApiProperty({ required: false, enum: ['asc', 'desc'], default: 'desc' })
  @IsOptional()
  @IsIn(['asc', 'desc'])
  order?: 'asc' | 'desc';
}
