/**
 * The OpenAI chat-completion wire format, for OpenAI-compatible upstreams: the request as sent
 * (ProviderRequest fields passed through), and answers and stream events normalised to the shapes
 * of the official `openai` types (compatible servers differ in what they omit).
 */
import { randomUUID } from 'node:crypto';

import type { EventSourceMessage } from 'eventsource-parser';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';

import type { ChatCompletion, ChatCompletionChunk, ChatCompletionMessageParam, ProviderRequest } from './provider.types';
import { ProviderError } from './provider.types';
import { reasoningTextOf, withoutReasoning } from './reasoning';
import type { EventTranslator } from './sse-stream';
import { completionUsageOf, TokenCounts, tokensFromOpenAI } from './token-usage';
import { streamErrorEvent } from './upstream-errors';

/** The request as sent upstream: the ProviderRequest fields that are set, `metadata` excepted. */
export function toOpenAIBody(req: ProviderRequest): ChatCompletionCreateParamsNonStreaming {
  const { metadata: _parleyMetadata, ...fields } = req;
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) body[name] = value;
  body.messages = req.messages.map(toOpenAIMessage);
  return body as unknown as ChatCompletionCreateParamsNonStreaming;
}

/** Roles whose content the chat-completion API requires to be text or parts, never null. */
const TEXT_ROLES = new Set(['system', 'developer', 'user', 'tool']);

/**
 * A message as the chat-completion API takes it. The spec's message object may carry a
 * `tool_choice` (and an empty `tool_calls`), which that API has no place for and rejects
 * ("additional properties are not allowed"): both are left out. A thread message may hold
 * `content: null` whatever its role (Create Thread Message allows it); outside assistant and
 * function messages that is sent as empty text. Threads keep every message as given.
 */
function toOpenAIMessage(message: ChatCompletionMessageParam): ChatCompletionMessageParam {
  // Reasoning is not sent back: compatible servers (DeepSeek) refuse it in the history.
  const { tool_choice: _toolChoice, ...rest } = withoutReasoning(message as ChatCompletionMessageParam & { tool_choice?: unknown });
  if (Array.isArray(rest.content) && rest.content.some((part) => part.type === 'file' && 'file_url' in part.file)) {
    // The chat-completion API takes a file as data or an uploaded id, not by URL (docs/openai-conversations.md, "Input files").
    throw new ProviderError('bad_request', 'The openai provider cannot send a file by file_url: send it as file_data (a base64 data URL)', {
      provider: 'openai',
    });
  }
  if ('tool_calls' in rest && Array.isArray(rest.tool_calls) && rest.tool_calls.length === 0) delete rest.tool_calls;
  if (rest.content === null && TEXT_ROLES.has(rest.role)) return { ...rest, content: '' } as ChatCompletionMessageParam;
  return rest;
}

/** Compatible servers differ in what they omit; fill in the fields the chat-completion shape has. */
export function normaliseCompletion(raw: ChatCompletion, model: string): ChatCompletion {
  return {
    id: raw.id ?? `chatcmpl-${randomUUID()}`,
    object: 'chat.completion',
    created: raw.created ?? Math.floor(Date.now() / 1000),
    model: raw.model ?? model,
    choices: (raw.choices ?? []).map((choice, i) => {
      const msg = choice.message ?? ({} as Partial<ChatCompletion.Choice['message']>);
      return {
        index: choice.index ?? i,
        message: {
          role: 'assistant' as const,
          content: msg.content ?? null,
          refusal: msg.refusal ?? null,
          ...(msg.tool_calls?.length ? { tool_calls: msg.tool_calls } : {}),
          ...(msg.function_call ? { function_call: msg.function_call } : {}),
          ...reasoningField(msg),
        },
        logprobs: choice.logprobs ?? null,
        finish_reason: choice.finish_reason ?? 'stop',
      };
    }),
    ...(raw.usage ? { usage: completionUsageOf(tokensFromOpenAI(raw.usage)) } : {}),
  };
}

/** `reasoning_content` under Parley's one name, whichever the server used (reasoning.ts). */
function reasoningField(value: unknown): { reasoning_content?: string } {
  const text = reasoningTextOf(value);
  return text === undefined ? {} : { reasoning_content: text };
}

export function normaliseChunk(raw: ChatCompletionChunk, model: string): ChatCompletionChunk {
  return {
    id: raw.id,
    object: 'chat.completion.chunk',
    created: raw.created ?? Math.floor(Date.now() / 1000),
    model: raw.model ?? model,
    choices: raw.choices.map((choice, i) => {
      const { reasoning: _reasoning, ...delta } = (choice.delta ?? {}) as ChatCompletionChunk.Choice['delta'] & { reasoning?: unknown };
      return {
        index: choice.index ?? i,
        delta: { ...delta, ...reasoningField(choice.delta) },
        finish_reason: choice.finish_reason ?? null,
      };
    }),
  };
}

/** OpenAI stream events -> chunks; the usage-only chunk (include_usage) is kept, not yielded. */
export class OpenAIEventTranslator implements EventTranslator {
  readonly endMarker = 'a finish_reason';
  finished = false;
  tokens: TokenCounts | undefined;

  constructor(private readonly model: string) {}

  translate(event: EventSourceMessage): ChatCompletionChunk[] {
    if (event.data.startsWith('[DONE]')) return [];
    const data = JSON.parse(event.data) as ChatCompletionChunk & { error?: unknown };
    if (event.event === 'error' || data?.error) throw streamErrorEvent('openai', data);
    if (data.usage) this.tokens = tokensFromOpenAI(data.usage);
    if (!data.choices?.length) return [];
    this.finished ||= data.choices.some((choice) => choice.finish_reason);
    return [normaliseChunk(data, this.model)];
  }
}
