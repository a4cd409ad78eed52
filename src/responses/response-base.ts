import type { ResponseBase, ResponseObject } from './response-object';
import { responseIdOf, ResponsesBody } from './responses.schema';
import { toolsEcho } from './responses-translate';

/**
 * The one place that fills the Response object's request-derived fields, every one the Open
 * Responses specification requires (docs/openai-conversations.md, "Response object"). The
 * sampling parameters are the effective ones: the request's, else the deployment's stored
 * settings, else the API's documented defaults (temperature and top_p 1, penalties 0).
 */
export interface ResponseContext {
  uuid: string;
  /** What the caller named: `model`, else `prompt.id`. */
  model: string;
  conversationId: string | null;
  /** The invocation's effective parameters (stored settings with the request's overrides). */
  parameters: Record<string, unknown>;
  createdAt?: number;
}

const numberOr = (value: unknown, fallback: number): number => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);
const intOrNull = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) ? value : null);

export function responseBaseOf(body: ResponsesBody, context: ResponseContext): ResponseBase {
  const { parameters } = context;
  return {
    id: responseIdOf(context.uuid),
    created_at: context.createdAt ?? Math.floor(Date.now() / 1000),
    model: context.model,
    instructions: body.instructions ?? null,
    metadata: body.metadata ?? {},
    tools: toolsEcho(body),
    tool_choice: body.tool_choice ?? 'auto',
    temperature: numberOr(parameters.temperature, 1),
    top_p: numberOr(parameters.top_p, 1),
    presence_penalty: numberOr(parameters.presence_penalty, 0),
    frequency_penalty: numberOr(parameters.frequency_penalty, 0),
    top_logprobs: body.top_logprobs ?? 0,
    max_output_tokens: intOrNull(parameters.max_completion_tokens) ?? intOrNull(parameters.max_tokens),
    max_tool_calls: body.max_tool_calls ?? null,
    previous_response_id: body.previous_response_id ?? null,
    conversation: context.conversationId ? { id: context.conversationId } : null,
    text: { format: textFormatEcho(body) },
    truncation: body.truncation ?? 'disabled',
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: body.reasoning?.summary ?? null },
    user: body.user ?? null,
    safety_identifier: body.safety_identifier ?? null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    // `auto` resolves to the tier that served the call: Parley asks for none other.
    service_tier: body.service_tier && body.service_tier !== 'auto' ? body.service_tier : 'default',
    background: body.background ?? false,
    store: body.store ?? true,
  };
}

/** `text.format` as the specification's TextField echoes it (json_schema with `description` and `strict`). */
function textFormatEcho(body: ResponsesBody): Record<string, unknown> {
  const format = body.text?.format;
  if (!format) return { type: 'text' };
  if (format.type !== 'json_schema') return { ...format };
  return {
    type: 'json_schema',
    name: format.name,
    description: format.description ?? null,
    schema: format.schema,
    strict: format.strict ?? false,
  };
}

/**
 * Defaults for the fields a Response stored before they were filled, so older rows answer GET
 * with every required field too; a stored value always wins. `NUMBERS_OR_OBJECTS` were stored as
 * null where the specification now requires a value.
 */
const NULLABLE_DEFAULTS = { completed_at: null, max_tool_calls: null, user: null, safety_identifier: null, prompt_cache_key: null };
const NUMBERS_OR_OBJECTS = {
  metadata: {},
  temperature: 1,
  top_p: 1,
  presence_penalty: 0,
  frequency_penalty: 0,
  top_logprobs: 0,
  reasoning: { effort: null, summary: null },
  service_tier: 'default',
  background: false,
};

export function withRequiredFields(stored: Record<string, unknown>): ResponseObject {
  const filled: Record<string, unknown> = { ...stored };
  for (const [field, value] of Object.entries(NULLABLE_DEFAULTS)) if (filled[field] === undefined) filled[field] = value;
  for (const [field, value] of Object.entries(NUMBERS_OR_OBJECTS))
    if (filled[field] === undefined || filled[field] === null) filled[field] = value;
  if (filled.completed_at === null && filled.status === 'completed' && typeof filled.created_at === 'number')
    filled.completed_at = filled.created_at;
  return filled as unknown as ResponseObject;
}
