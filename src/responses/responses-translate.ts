import type { RequestOverrides } from '../invocation/invocation.types';
import { ResponsesBody } from './responses.schema';

/**
 * Responses request fields → chat-completion overrides, so every provider (OpenAI-compatible,
 * Anthropic, local) serves Responses: `max_output_tokens` → `max_tokens`, the penalties,
 * `safety_identifier`, `prompt_cache_key` and `service_tier` as named, function `tools` →
 * chat tools, `tool_choice {type, name}` → `{type, function: {name}}`, `text.format` →
 * `response_format`. See docs/openai-conversations.md, "Responses".
 */
export function overridesOf(body: ResponsesBody): RequestOverrides {
  const overrides: RequestOverrides = {};
  if (body.temperature != null) overrides.temperature = body.temperature;
  if (body.top_p != null) overrides.top_p = body.top_p;
  if (body.max_output_tokens != null) overrides.max_tokens = body.max_output_tokens;
  if (body.parallel_tool_calls != null) overrides.parallel_tool_calls = body.parallel_tool_calls;
  if (body.user !== undefined) overrides.user = body.user;
  if (body.presence_penalty != null) overrides.presence_penalty = body.presence_penalty;
  if (body.frequency_penalty != null) overrides.frequency_penalty = body.frequency_penalty;
  if (body.safety_identifier != null) overrides.safety_identifier = body.safety_identifier;
  if (body.prompt_cache_key != null) overrides.prompt_cache_key = body.prompt_cache_key;
  if (body.service_tier != null) overrides.service_tier = body.service_tier;
  if (body.reasoning?.effort != null) overrides.reasoning_effort = body.reasoning.effort;
  if (body.tools && body.tools.length > 0) {
    overrides.tools = body.tools.map((tool) => ({
      type: 'function' as const,
      function: {
        name: tool.name,
        ...(tool.description != null ? { description: tool.description } : {}),
        ...(tool.parameters != null ? { parameters: tool.parameters } : {}),
        ...(tool.strict != null ? { strict: tool.strict } : {}),
      },
    }));
  }
  if (body.tool_choice !== undefined) {
    overrides.tool_choice =
      typeof body.tool_choice === 'string' ? body.tool_choice : { type: 'function', function: { name: body.tool_choice.name } };
  }
  const format = body.text?.format;
  if (format?.type === 'json_object') overrides.response_format = { type: 'json_object' };
  if (format?.type === 'json_schema') {
    overrides.response_format = {
      type: 'json_schema',
      json_schema: {
        name: format.name,
        schema: format.schema,
        ...(format.description ? { description: format.description } : {}),
        ...(format.strict != null ? { strict: format.strict } : {}),
      },
    };
  }
  return overrides;
}

/** The Response's echo of the request's tools (the SDK's FunctionTool shape). */
export const toolsEcho = (body: ResponsesBody) =>
  (body.tools ?? []).map((t) => ({
    type: 'function',
    name: t.name,
    description: t.description ?? null,
    parameters: t.parameters ?? null,
    strict: t.strict ?? null,
  }));

/** Rough token count for `truncation: "auto"`: about four characters a token, as OpenAI documents. */
export function estimateTokens(message: Record<string, unknown>): number {
  return Math.ceil(JSON.stringify(message.content ?? '').length / 4) + Math.ceil(JSON.stringify(message.tool_calls ?? '').length / 4) + 4;
}

/** Messages measured between two yields to the event loop: a few milliseconds of work. */
const MEASURE_CHUNK = 200;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The estimate of every message, in order; yields to the event loop every MEASURE_CHUNK messages. */
async function estimatesOf(messages: Record<string, unknown>[]): Promise<number[]> {
  const estimates = new Array<number>(messages.length);
  for (let i = 0; i < messages.length; i++) {
    if (i > 0 && i % MEASURE_CHUNK === 0) await yieldToEventLoop();
    estimates[i] = estimateTokens(messages[i]);
  }
  return estimates;
}

/**
 * `truncation: "auto"`: drops the oldest history messages (never the template's system messages
 * at the head, never this turn's input) until the estimate fits `budget`; a tool result left
 * without its call is dropped with it. Returns the messages unchanged when they fit.
 *
 * Linear in the conversation: each message is measured once and the kept history's total is a
 * running sum, and the measuring yields to the event loop between chunks, so a conversation of
 * any length never holds the instance on one long synchronous stretch (docs/openai-conversations.md).
 */
export async function truncateHistory<M extends Record<string, unknown>>(head: M[], history: M[], tail: M[], budget: number): Promise<M[]> {
  const sum = (estimates: number[]) => estimates.reduce((total, n) => total + n, 0);
  const fixed = sum(await estimatesOf(head)) + sum(await estimatesOf(tail));
  const estimates = await estimatesOf(history);
  let kept = sum(estimates);
  let first = 0;
  while (first < history.length && fixed + kept > budget) {
    kept -= estimates[first++];
    while (first < history.length && history[first].role === 'tool') kept -= estimates[first++];
  }
  return first === 0 ? [...head, ...history, ...tail] : [...head, ...history.slice(first), ...tail];
}
