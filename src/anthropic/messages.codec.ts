import type {
  ContentBlock,
  Message,
  MessageDeltaUsage,
  StopReason,
  ThinkingBlock,
  ToolUseBlock,
  Usage,
} from '@anthropic-ai/sdk/resources/messages';

import type { ChatCompletion, CompletionUsage, ReasoningFields, StopSequenceField } from '../providers';

/**
 * Parley's completions as Anthropic's Message (the official `@anthropic-ai/sdk` types), the
 * answer codec of `/v1/messages` (docs/anthropic-compatibility.md, "Response"). The stream codec
 * (messages.stream.ts) uses the same pieces, so a streamed message adds up to the one answered
 * whole.
 */

type Choice = ChatCompletion.Choice & StopSequenceField;

/**
 * `msg_...`: Anthropic's own ids as they are; otherwise made from the completion's id (the same
 * for the streamed and the whole answer, and for an Idempotency-Key replay of either).
 */
export function messageIdOf(completionId: string): string {
  if (completionId.startsWith('msg_')) return completionId;
  const tail = completionId.replace(/^chatcmpl-/, '').replace(/[^A-Za-z0-9]/g, '');
  return `msg_${tail || 'parley'}`;
}

/** The chat format's finish reason as Anthropic's stop reason, with the stop sequence that ended it where the provider said. */
export function stopOf(choice: Choice | undefined): { stop_reason: StopReason; stop_sequence: string | null } {
  switch (choice?.finish_reason) {
    case 'length':
      return { stop_reason: 'max_tokens', stop_sequence: null };
    case 'tool_calls':
    case 'function_call':
      return { stop_reason: 'tool_use', stop_sequence: null };
    case 'content_filter':
      return { stop_reason: 'refusal', stop_sequence: null };
    default:
      return choice?.stop_sequence
        ? { stop_reason: 'stop_sequence', stop_sequence: choice.stop_sequence }
        : { stop_reason: 'end_turn', stop_sequence: null };
  }
}

/**
 * The call's usage in Anthropic's terms: `input_tokens` without the cache reads (OpenAI's
 * `cached_tokens`), which are `cache_read_input_tokens`; `output_tokens` with the reasoning.
 * Cache writes have no place in the chat format's usage (the request log keeps them): 0.
 */
export function usageCountsOf(usage: CompletionUsage | undefined) {
  const cacheRead = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.prompt_tokens ?? 0) - cacheRead),
    output_tokens: usage?.completion_tokens ?? 0,
    cache_read_input_tokens: cacheRead,
    cache_creation_input_tokens: 0,
    output_tokens_details: usage?.completion_tokens_details?.reasoning_tokens
      ? { thinking_tokens: usage.completion_tokens_details.reasoning_tokens }
      : null,
    server_tool_use: null,
  } satisfies MessageDeltaUsage;
}

export function usageOf(usage: CompletionUsage | undefined): Usage {
  return { ...usageCountsOf(usage), cache_creation: null, inference_geo: null, service_tier: null, speed: null };
}

/** A tool call's arguments as the tool_use block's `input`: the JSON object they spell, `{}` when they spell none. */
export function toolInputOf(args: string): Record<string, unknown> {
  try {
    const input: unknown = JSON.parse(args || '{}');
    return typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export const toolUseBlock = (id: string, name: string, input: Record<string, unknown>): ToolUseBlock => ({
  type: 'tool_use',
  id,
  name,
  input,
  caller: { type: 'direct' },
});

/** The reply's content blocks in Anthropic's order: thinking, text, tool uses. */
export function contentOf(message: Choice['message'] & ReasoningFields): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  if (message.reasoning_content || message.reasoning_signature) {
    const thinking: ThinkingBlock = {
      type: 'thinking',
      thinking: message.reasoning_content ?? '',
      signature: message.reasoning_signature ?? '',
    };
    blocks.push(thinking);
  }
  if (message.content) blocks.push({ type: 'text', text: message.content, citations: null });
  for (const call of message.tool_calls ?? []) {
    if (call.type === 'function') blocks.push(toolUseBlock(call.id, call.function.name, toolInputOf(call.function.arguments)));
  }
  return blocks;
}

/** The first choice as Anthropic's Message (the Messages API has one answer per call). */
export function anthropicMessageOf(completion: ChatCompletion): Message {
  const choice = completion.choices[0] as Choice | undefined;
  return {
    id: messageIdOf(completion.id),
    type: 'message',
    role: 'assistant',
    model: completion.model,
    content: choice ? contentOf(choice.message) : [],
    ...stopOf(choice),
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: usageOf(completion.usage),
  };
}
