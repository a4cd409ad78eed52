/**
 * Input token counts for OpenAI's own models, with `gpt-tokenizer` (it ships the encodings, no
 * download): the request's text and function definitions as OpenAI's chat format counts them,
 * model by model (docs/openai-conversations.md, "Input token counts"). Other models are estimated.
 */
import { contentText } from './message-text';
import type { ProviderRequest } from './provider.types';

type ChatCount = (request: {
  messages: { role: string; content: string; name?: string }[];
  functions?: { name: string; description?: string; parameters?: unknown }[];
}) => number;

const counters = new Map<string, ChatCount | null>();

/** The model's counter when gpt-tokenizer knows the model (its module `gpt-tokenizer/model/<name>`), else null. */
function counterFor(model: string): ChatCount | null {
  if (counters.has(model)) return counters.get(model)!;
  let counter: ChatCount | null = null;
  if (/^[a-z0-9][a-z0-9.-]{0,80}$/.test(model)) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- one encoding module per model, loaded when first asked
      const module = require(`gpt-tokenizer/model/${model}`) as { countChatCompletionTokens?: ChatCount };
      counter = module.countChatCompletionTokens ?? null;
    } catch {
      counter = null;
    }
  }
  counters.set(model, counter);
  return counter;
}

/** About four characters a token, as OpenAI documents for English text. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

/** The text a message contributes: its text parts, and its tool calls as the JSON they are sent as. */
function messageText(message: ProviderRequest['messages'][number]): string {
  const calls = 'tool_calls' in message && message.tool_calls?.length ? JSON.stringify(message.tool_calls) : '';
  return contentText(message.content) + calls;
}

export function countOpenAIInputTokens(req: ProviderRequest): { input_tokens: number; exact: boolean } {
  const counter = counterFor(req.model);
  if (!counter) {
    const text = req.messages.map(messageText).join('\n') + (req.tools?.length ? JSON.stringify(req.tools) : '');
    return { input_tokens: estimateTokens(text) + 3 * req.messages.length, exact: false };
  }
  const messages = req.messages.map((m) => ({ role: m.role === 'developer' ? 'system' : m.role, content: messageText(m) }));
  const functions = req.tools?.flatMap((tool) => (tool.type === 'function' ? [tool.function] : []));
  return { input_tokens: counter({ messages, ...(functions?.length ? { functions } : {}) }), exact: true };
}
