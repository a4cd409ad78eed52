import type { ChatMessage } from '../common/chat';
import type { ChatCompletion, ProviderRequest } from '../providers';
import type { ModelParameters, ResolvedDeployment } from '../registry/resolved-deployment';
import type { AssistantInvokeBody } from './dto';

/** The body fields that override a version's stored model settings, one for one. */
const OVERRIDES = ['temperature', 'top_p', 'max_tokens', 'presence_penalty', 'frequency_penalty', 'seed', 'tool_choice', 'response_format'] as const;

/** Stored settings with the request's overrides applied: what the request log records as `parameters`. */
export function effectiveParameters(stored: ModelParameters, body: AssistantInvokeBody): ModelParameters {
  const parameters: ModelParameters = { ...stored };
  for (const key of OVERRIDES) {
    if (body[key] !== undefined) (parameters as Record<string, unknown>)[key] = body[key];
  }
  return parameters;
}

/**
 * What goes to the provider (DESIGN.md §4.4): the compiled template, then the thread history
 * (assistants), then the request's messages; request values override the stored settings.
 */
export function buildProviderRequest(input: {
  resolved: ResolvedDeployment;
  body: AssistantInvokeBody;
  templateMessages: ChatMessage[];
  history: ChatMessage[];
  metadata: Record<string, string | number>;
}): ProviderRequest {
  const { resolved, body } = input;
  const parameters = effectiveParameters(resolved.parameters, body);
  const request: ProviderRequest = {
    model: body.model ?? resolved.model,
    messages: [...input.templateMessages, ...input.history, ...(body.messages ?? [])] as ProviderRequest['messages'],
  };
  const { tool_choice: toolChoice, ...settings } = parameters;
  Object.assign(request, settings);
  if (resolved.tools.length > 0) request.tools = resolved.tools as ProviderRequest['tools'];
  // A tool choice needs tools, except a named function (the local provider answers it without).
  if (toolChoice !== undefined && (resolved.tools.length > 0 || typeof toolChoice === 'object')) {
    request.tool_choice = toolChoice as ProviderRequest['tool_choice'];
  }
  if (body.user !== undefined) request.user = body.user;
  const metadata = Object.fromEntries(Object.entries(input.metadata).map(([k, v]) => [k, String(v)]));
  if (Object.keys(metadata).length > 0) request.metadata = metadata;
  return request;
}

/** The reply as stored in a thread: a message object with only the spec's fields. */
export function replyMessage(message: { role: string; content: unknown; tool_calls?: unknown; function_call?: unknown }): ChatMessage {
  const reply: Record<string, unknown> = { role: 'assistant', content: message.content ?? null };
  if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
    reply.tool_calls = message.tool_calls.map((call: { id: string; type: string; function: { name: string; arguments: string } }) => ({
      id: call.id,
      type: 'function',
      function: { name: call.function.name, arguments: call.function.arguments },
    }));
  }
  if (message.function_call) reply.function_call = message.function_call;
  return reply as ChatMessage;
}

/**
 * The completion as Parley answers it: the spec's fields (id, object, created, model, choices of
 * index, message, finish_reason) plus `usage`, without the provider-specific extras
 * (`refusal`, `logprobs`, `system_fingerprint`).
 */
export function completionResponse(completion: ChatCompletion): Record<string, unknown> {
  return {
    id: completion.id,
    object: 'chat.completion',
    created: completion.created,
    model: completion.model,
    choices: completion.choices.map((choice) => ({
      index: choice.index,
      message: replyMessage(choice.message),
      finish_reason: choice.finish_reason,
    })),
    ...(completion.usage ? { usage: completion.usage } : {}),
  };
}
