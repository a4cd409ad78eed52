import { type ChatMessage, forModel } from '../common/chat';
import type { ChatCompletion, ProviderRequest, ReasoningFields } from '../providers';
import { withoutReasoning } from '../providers';
import type { RequestOverrides, ResolvedTarget } from './invocation.types';

/** Overrides that are not model settings: they never appear in the log's `parameters`. */
const NOT_PARAMETERS = new Set(['model', 'user', 'tools']);

/** Stored settings with the request's overrides applied: what the request log records as `parameters`. */
export function effectiveParameters(target: ResolvedTarget, overrides: RequestOverrides): Record<string, unknown> {
  const parameters: Record<string, unknown> = { ...(target.deployment?.parameters ?? {}) };
  for (const [key, value] of Object.entries(overrides)) {
    if (value !== undefined && !NOT_PARAMETERS.has(key)) parameters[key] = value;
  }
  return parameters;
}

/**
 * What goes to the provider (DESIGN.md §4.4): the compiled template, then the thread history,
 * then the request's messages; request values override the stored settings.
 */
export function buildProviderRequest(input: {
  target: ResolvedTarget;
  overrides: RequestOverrides;
  parameters: Record<string, unknown>;
  templateMessages: ChatMessage[];
  history: ChatMessage[];
  messages: ChatMessage[];
  metadata: Record<string, string | number>;
}): ProviderRequest {
  const { target, overrides } = input;
  const request: ProviderRequest = {
    model: overrides.model ?? target.model,
    // Compactions become their system message; items Parley does not interpret never leave (common/chat/stored-items.ts).
    messages: forModel([...input.templateMessages, ...input.history, ...input.messages]) as ProviderRequest['messages'],
  };
  const { tool_choice: toolChoice, ...settings } = input.parameters;
  Object.assign(request, settings);
  const tools = overrides.tools ?? ((target.deployment?.tools ?? []) as ProviderRequest['tools'] & unknown[]);
  if (tools.length > 0) request.tools = tools;
  // A tool choice needs tools, except a named function (the local provider answers it without).
  if (toolChoice !== undefined && (tools.length > 0 || typeof toolChoice === 'object')) {
    request.tool_choice = toolChoice as ProviderRequest['tool_choice'];
  }
  if (overrides.user !== undefined) request.user = overrides.user;
  const metadata = Object.fromEntries(Object.entries(input.metadata).map(([k, v]) => [k, String(v)]));
  if (Object.keys(metadata).length > 0) request.metadata = metadata;
  return request;
}

/** The reply as stored in a thread: a message object with only the spec's fields. */
export function replyMessage(
  message: { role: string; content: unknown; tool_calls?: unknown; function_call?: unknown } & ReasoningFields,
): ChatMessage {
  const reply: Record<string, unknown> = { role: 'assistant', content: message.content ?? null };
  // Kept in the thread so the next turn can send it back where the provider needs it (providers/reasoning.ts).
  if (message.reasoning_content) reply.reasoning_content = message.reasoning_content;
  if (message.reasoning_signature) reply.reasoning_signature = message.reasoning_signature;
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
      message: withoutReasoning(replyMessage(choice.message)),
      finish_reason: choice.finish_reason,
    })),
    ...(completion.usage ? { usage: completion.usage } : {}),
  };
}
