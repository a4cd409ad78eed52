import type { Attributes } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE, ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT } from '@opentelemetry/semantic-conventions';

import type { ChatCompletion, ChatCompletionMessageParam, ProviderRequest } from '../providers';
import { type TokenCounts, tokensFromOpenAI } from '../providers/token-usage';
import type { GenAiAttemptInfo, GenAiCallInfo, GenAiOutcome } from './request-trace';
import * as semconv from './semconv';

/**
 * The GenAI semantic conventions' attributes of a call and of each of its attempts
 * (docs/observability.md, "Spans"). Built only while the export is on, and only for a span that
 * records (a sampled trace).
 */

/** gen_ai.provider.name by Parley's adapter: the wire format it speaks (an OpenAI-compatible server speaks OpenAI's). */
const PROVIDER_NAMES: Record<string, string> = { openai: 'openai', anthropic: 'anthropic', local: 'parley.local' };

export const providerNameOf = (providerType: string): string => PROVIDER_NAMES[providerType] ?? providerType;

/** What every attempt of the call carries: Parley's own attributes and the conversation. */
export function callAttributes(call: GenAiCallInfo): Attributes {
  const attributes: Attributes = {
    [semconv.ATTR_GEN_AI_OPERATION_NAME]: call.operation,
    [semconv.ATTR_PARLEY_LOG_ID]: call.logId,
    [semconv.ATTR_PARLEY_WORKSPACE]: call.workspace,
    [semconv.ATTR_PARLEY_PROJECT]: call.project,
  };
  if (call.stream) attributes[semconv.ATTR_GEN_AI_REQUEST_STREAM] = true;
  if (call.environment) attributes[semconv.ATTR_PARLEY_ENVIRONMENT] = call.environment;
  if (call.prompt) {
    attributes[semconv.ATTR_GEN_AI_PROMPT_NAME] = call.prompt.name;
    if (call.prompt.version !== null) attributes[semconv.ATTR_PARLEY_PROMPT_VERSION] = call.prompt.version;
  }
  if (call.arm !== null) attributes[semconv.ATTR_PARLEY_EXPERIMENT_ARM] = call.arm;
  if (call.conversationId) attributes[semconv.ATTR_GEN_AI_CONVERSATION_ID] = call.conversationId;
  return attributes;
}

/** A request parameter, when it is a number. */
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** The attempt's target and request parameters, on top of the call's attributes (copied: the call's serve every attempt). */
export function attemptAttributes(base: Attributes, attempt: GenAiAttemptInfo): Attributes {
  const request = attempt.request;
  const attributes: Attributes = Object.assign({}, base);
  attributes[semconv.ATTR_GEN_AI_PROVIDER_NAME] = providerNameOf(attempt.providerType);
  attributes[semconv.ATTR_GEN_AI_REQUEST_MODEL] = request.model;
  attributes[semconv.ATTR_PARLEY_PROVIDER] = attempt.providerName;
  attributes[semconv.ATTR_PARLEY_ATTEMPT] = attempt.number;
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (isNumber(maxTokens)) attributes[semconv.ATTR_GEN_AI_REQUEST_MAX_TOKENS] = maxTokens;
  if (isNumber(request.temperature)) attributes[semconv.ATTR_GEN_AI_REQUEST_TEMPERATURE] = request.temperature;
  if (isNumber(request.top_p)) attributes[semconv.ATTR_GEN_AI_REQUEST_TOP_P] = request.top_p;
  if (isNumber(request.presence_penalty)) attributes[semconv.ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY] = request.presence_penalty;
  if (isNumber(request.frequency_penalty)) attributes[semconv.ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY] = request.frequency_penalty;
  if (isNumber(request.seed)) attributes[semconv.ATTR_GEN_AI_REQUEST_SEED] = request.seed;
  if (isNumber(request.n) && request.n !== 1) attributes[semconv.ATTR_GEN_AI_REQUEST_CHOICE_COUNT] = request.n;
  if (request.stop !== undefined)
    attributes[semconv.ATTR_GEN_AI_REQUEST_STOP_SEQUENCES] = Array.isArray(request.stop) ? request.stop : [request.stop];
  const server = serverOf(attempt.baseUrl);
  if (server) {
    attributes[ATTR_SERVER_ADDRESS] = server.address;
    if (server.port !== undefined) attributes[ATTR_SERVER_PORT] = server.port;
  }
  return attributes;
}

type Server = { address: string; port: number | undefined } | null;
/** Base URLs already parsed: a project has a few providers, each call would parse its URL again. */
const servers = new Map<string, Server>();
const MAX_SERVERS = 1000;

/** The host and port of a base URL, never its credentials or path. */
function serverOf(baseUrl: string | undefined): Server {
  if (!baseUrl) return null;
  let server = servers.get(baseUrl);
  if (server !== undefined) return server;
  try {
    const url = new URL(baseUrl);
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : url.protocol === 'http:' ? 80 : undefined;
    server = { address: url.hostname, port };
  } catch {
    server = null;
  }
  if (servers.size >= MAX_SERVERS) servers.clear();
  servers.set(baseUrl, server);
  return server;
}

/** The tokens by kind, as reported (preferred) or read from OpenAI's usage shape. */
function tokensOf(outcome: GenAiOutcome): TokenCounts | undefined {
  if (outcome.tokens) return outcome.tokens;
  const usage = outcome.usage ?? outcome.completion?.usage;
  return usage ? tokensFromOpenAI(usage) : undefined;
}

/** Input tokens as the conventions count them: every kind, cached included. */
export const inputTokensOf = (t: TokenCounts): number => t.input + t.cacheRead + t.cacheWrite;
/** Output tokens as the conventions count them: reasoning included. */
export const outputTokensOf = (t: TokenCounts): number => t.output + t.reasoning;

/** The response's attributes: id, model, finish reasons and token usage (an embedding has input tokens only). */
export function outcomeAttributes(
  outcome: GenAiOutcome,
  operation: GenAiCallInfo['operation'],
): { attributes: Attributes; tokens: TokenCounts | undefined } {
  const attributes: Attributes = {};
  const completion = outcome.completion;
  if (completion?.id) attributes[semconv.ATTR_GEN_AI_RESPONSE_ID] = completion.id;
  const model = outcome.responseModel ?? completion?.model;
  if (model) attributes[semconv.ATTR_GEN_AI_RESPONSE_MODEL] = model;
  const reasons = (completion?.choices ?? [])
    .map((choice) => choice.finish_reason)
    .filter((reason): reason is NonNullable<typeof reason> => !!reason);
  if (reasons.length > 0) attributes[semconv.ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = reasons;
  const tokens = tokensOf(outcome);
  if (tokens) {
    attributes[semconv.ATTR_GEN_AI_USAGE_INPUT_TOKENS] = inputTokensOf(tokens);
    if (operation === 'chat') attributes[semconv.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = outputTokensOf(tokens);
    if (tokens.cacheRead > 0) attributes[semconv.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = tokens.cacheRead;
    if (tokens.cacheWrite > 0) attributes[semconv.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS] = tokens.cacheWrite;
    if (tokens.reasoning > 0) attributes[semconv.ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS] = tokens.reasoning;
  }
  return { attributes, tokens };
}

export const errorAttributes = (errorType: string): Attributes => ({ [ATTR_ERROR_TYPE]: errorType });

type Part = Record<string, unknown>;

const argumentsOf = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** A message's content as the conventions' parts: text as text; other parts by their type only (no image or file data). */
function contentParts(content: unknown): Part[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', content }];
  if (!Array.isArray(content)) return [];
  return content.map((part: { type?: unknown; text?: unknown }) =>
    part?.type === 'text' && typeof part.text === 'string'
      ? { type: 'text', content: part.text }
      : { type: String(part?.type ?? 'unknown') },
  );
}

function toolCallParts(message: { tool_calls?: unknown }): Part[] {
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  return calls.map((call: { id?: string; function?: { name?: string; arguments?: string } }) => ({
    type: 'tool_call',
    id: call.id,
    name: call.function?.name,
    arguments: typeof call.function?.arguments === 'string' ? argumentsOf(call.function.arguments) : call.function?.arguments,
  }));
}

/** gen_ai.input.messages (the conventions' input messages JSON schema), as a JSON string. */
export function inputMessagesOf(request: ProviderRequest): string {
  return JSON.stringify(
    request.messages.map((message: ChatCompletionMessageParam) => {
      if (message.role === 'tool') {
        return { role: 'tool', parts: [{ type: 'tool_call_response', id: message.tool_call_id, response: message.content }] };
      }
      return { role: message.role, parts: [...contentParts(message.content), ...toolCallParts(message as { tool_calls?: unknown })] };
    }),
  );
}

/** gen_ai.output.messages: one message per choice, with its finish reason, as a JSON string. */
export function outputMessagesOf(completion: ChatCompletion): string {
  return JSON.stringify(
    completion.choices.map((choice) => ({
      role: choice.message?.role ?? 'assistant',
      parts: [...contentParts(choice.message?.content), ...toolCallParts(choice.message ?? {})],
      finish_reason: choice.finish_reason ?? null,
    })),
  );
}
