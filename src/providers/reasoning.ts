/**
 * A model's reasoning in the chat-completion format Parley speaks to every adapter
 * (docs/openai-conversations.md, "Reasoning"): the request's `reasoning_effort`, and on the
 * assistant message (and stream delta) `reasoning_content` — the reasoning text the provider
 * gives (DeepSeek's and vLLM's field; OpenRouter's and Ollama's `reasoning` is read as it) — with
 * `reasoning_signature`, Anthropic's signature of a thinking block, which Anthropic needs to be
 * sent back with the block on a later turn.
 */
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

export interface ReasoningFields {
  reasoning_content?: string;
  reasoning_signature?: string;
}

/** Anthropic extended thinking's `budget_tokens` for each effort (`none`: thinking off). */
export const ANTHROPIC_THINKING_BUDGET: Record<Exclude<ReasoningEffort, 'none'>, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 32000,
};

/** The reasoning text of a message or delta as an OpenAI-compatible server sends it, under either name. */
export function reasoningTextOf(value: unknown): string | undefined {
  const fields = value as { reasoning_content?: unknown; reasoning?: unknown } | null | undefined;
  const text = fields?.reasoning_content ?? fields?.reasoning;
  return typeof text === 'string' && text !== '' ? text : undefined;
}

/** A stored or sent message without Parley's reasoning fields (what the spec's /v2 views and OpenAI-compatible upstreams get). */
export function withoutReasoning<M extends object>(message: M): M {
  if (!('reasoning_content' in message) && !('reasoning_signature' in message)) return message;
  const { reasoning_content: _text, reasoning_signature: _signature, ...rest } = message as M & ReasoningFields;
  return rest as M;
}
