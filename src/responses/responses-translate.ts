import type { RequestOverrides } from '../invocation/invocation.types';
import { ResponsesBody } from './responses.schema';

/**
 * Responses request fields → chat-completion overrides, so every provider (OpenAI-compatible,
 * Anthropic, local) serves Responses: `max_output_tokens` → `max_tokens`, function `tools` →
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
    overrides.tool_choice = typeof body.tool_choice === 'string' ? body.tool_choice : { type: 'function', function: { name: body.tool_choice.name } };
  }
  const format = body.text?.format;
  if (format?.type === 'json_object') overrides.response_format = { type: 'json_object' };
  if (format?.type === 'json_schema') {
    overrides.response_format = {
      type: 'json_schema',
      json_schema: { name: format.name, schema: format.schema, ...(format.description ? { description: format.description } : {}), ...(format.strict != null ? { strict: format.strict } : {}) },
    };
  }
  return overrides;
}

/** The Response's echo of the request's tools (the SDK's FunctionTool shape). */
export const toolsEcho = (body: ResponsesBody) =>
  (body.tools ?? []).map((t) => ({ type: 'function', name: t.name, description: t.description ?? null, parameters: t.parameters ?? null, strict: t.strict ?? null }));

/** Rough token count for `truncation: "auto"`: about four characters a token, as OpenAI documents. */
export function estimateTokens(message: Record<string, unknown>): number {
  return Math.ceil(JSON.stringify(message.content ?? '').length / 4) + Math.ceil(JSON.stringify(message.tool_calls ?? '').length / 4) + 4;
}

/**
 * `truncation: "auto"`: drops the oldest history messages (never the template's system messages
 * at the head, never this turn's input) until the estimate fits `budget`; a tool result left
 * without its call is dropped with it. Returns the messages unchanged when they fit.
 */
export function truncateHistory<M extends Record<string, unknown>>(head: M[], history: M[], tail: M[], budget: number): M[] {
  const total = (list: M[]) => list.reduce((sum, m) => sum + estimateTokens(m), 0);
  const fixed = total(head) + total(tail);
  const kept = [...history];
  while (kept.length > 0 && fixed + total(kept) > budget) {
    kept.shift();
    while (kept.length > 0 && kept[0].role === 'tool') kept.shift();
  }
  return [...head, ...kept, ...tail];
}
