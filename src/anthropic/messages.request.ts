import type { ChatMessage } from '../common/chat';
import type { RequestOverrides } from '../invocation/invocation.types';
import { ANTHROPIC_THINKING_BUDGET, type ProviderType, type ReasoningEffort } from '../providers';
import { invalidField } from './anthropic-errors';
import type { MessageParam, PromptBody, ToolChoiceParam } from './messages.schema';

/**
 * A Messages request in the chat-completion format every provider adapter takes (the core's
 * InvocationInput messages and overrides), so each provider serves `/v1/messages`. Pure: the one
 * thing it needs to know of the target is its provider type, for what that type cannot be sent
 * (docs/anthropic-compatibility.md, "Request").
 *
 * - `system` (a string or text blocks) and `system` messages → system messages, in place;
 * - text → text parts; images (base64, URL) → `image_url` parts (a data: URL or the URL);
 *   documents (PDF base64 or URL, plain text) → `file` parts (`file_data` as a data: URL, or
 *   `file_url`), which the Anthropic adapter turns back into the same blocks;
 * - `tool_result` blocks → `tool` messages (text only), `tool_use` → the assistant's `tool_calls`,
 *   a `thinking` block → the assistant's `reasoning_content` and `reasoning_signature`;
 * - `max_tokens`, `temperature`, `top_p` as named, `stop_sequences` → `stop`, `metadata.user_id` →
 *   `user`, tools → function tools, `tool_choice` auto/any/tool/none → auto/required/function/none
 *   (`disable_parallel_tool_use` → `parallel_tool_calls: false`), `thinking` → `reasoning_effort`.
 */

type Part = Record<string, unknown>;
type Block<R extends MessageParam['role']> = Exclude<Extract<MessageParam, { role: R }>['content'], string>[number];

export function chatMessagesOf(body: PromptBody, provider: ProviderType): ChatMessage[] {
  const messages: Part[] = [];
  if (body.system !== undefined && body.system !== '' && !(Array.isArray(body.system) && body.system.length === 0))
    messages.push({ role: 'system', content: systemContent(body.system) });
  body.messages.forEach((message, m) => {
    const at = `messages.${m}.content`;
    if (message.role === 'system') messages.push({ role: 'system', content: systemContent(message.content) });
    else if (message.role === 'assistant') messages.push(assistantMessage(message.content, at));
    else if (typeof message.content === 'string') messages.push({ role: 'user', content: message.content });
    else messages.push(...userMessages(message.content, at, provider));
  });
  return messages as unknown as ChatMessage[];
}

const systemContent = (content: string | Array<{ text: string }>) =>
  typeof content === 'string' ? content : content.map((block) => ({ type: 'text', text: block.text }));

/** A user turn's blocks, in order: tool results become `tool` messages, the blocks between them user messages. */
function userMessages(blocks: Block<'user'>[], at: string, provider: ProviderType): Part[] {
  const out: Part[] = [];
  let parts: Part[] = [];
  const flush = () => {
    if (parts.length > 0) out.push({ role: 'user', content: parts });
    parts = [];
  };
  blocks.forEach((block, i) => {
    const here = `${at}.${i}`;
    if (block.type === 'tool_result') {
      if (block.is_error)
        throw invalidField(`${here}.is_error`, "is not supported: the chat format of Parley's providers has no place for it");
      flush();
      const content = Array.isArray(block.content) ? block.content.map((t) => ({ type: 'text', text: t.text })) : (block.content ?? '');
      out.push({ role: 'tool', tool_call_id: block.tool_use_id, content });
    } else if (block.type === 'text') {
      parts.push({ type: 'text', text: block.text });
    } else if (block.type === 'image') {
      const { source } = block;
      parts.push({
        type: 'image_url',
        image_url: { url: source.type === 'url' ? source.url : `data:${source.media_type};base64,${source.data}` },
      });
    } else {
      parts.push(documentPart(block, here, provider));
    }
  });
  flush();
  return out;
}

function documentPart(block: Extract<Block<'user'>, { type: 'document' }>, at: string, provider: ProviderType): Part {
  const { source } = block;
  // The chat-completion format takes a file as base64 data; OpenAI-compatible upstreams read PDFs only.
  if (provider === 'openai' && source.type !== 'base64')
    throw invalidField(`${at}.source.type`, `'${source.type}' documents cannot be sent to an OpenAI-compatible provider (base64 PDF only)`);
  const filename = block.title ? { filename: block.title } : {};
  if (source.type === 'url') return { type: 'file', file: { file_url: source.url, ...filename } };
  const data = source.type === 'text' ? Buffer.from(source.data, 'utf8').toString('base64') : source.data;
  return { type: 'file', file: { file_data: `data:${source.media_type};base64,${data}`, ...filename } };
}

function assistantMessage(content: string | Block<'assistant'>[], at: string): Part {
  if (typeof content === 'string') return { role: 'assistant', content };
  let text = '';
  const toolCalls: Part[] = [];
  const reasoning: Part = {};
  content.forEach((block, i) => {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'tool_use')
      toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input) } });
    else if ('reasoning_content' in reasoning) throw invalidField(`${at}.${i}`, 'one thinking block per assistant message is supported');
    else
      Object.assign(reasoning, { reasoning_content: block.thinking, ...(block.signature ? { reasoning_signature: block.signature } : {}) });
  });
  return {
    role: 'assistant',
    content: text || (toolCalls.length > 0 ? null : ''),
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    ...reasoning,
  };
}

/**
 * The request's settings as overrides of a deployment's stored ones. `thinking.budget_tokens` →
 * the largest `reasoning_effort` whose budget (providers/reasoning.ts: 1024, 2048, 8192, 16384,
 * 32000) does not exceed it, so Anthropic thinks with at most the budget asked; `disabled` → `none`.
 */
export function overridesOf(body: PromptBody): RequestOverrides {
  const overrides: RequestOverrides = {};
  if (body.max_tokens !== undefined) overrides.max_tokens = body.max_tokens;
  if (body.temperature !== undefined) overrides.temperature = body.temperature;
  if (body.top_p !== undefined) overrides.top_p = body.top_p;
  if (body.stop_sequences && body.stop_sequences.length > 0) overrides.stop = body.stop_sequences;
  if (body.metadata?.user_id != null) overrides.user = body.metadata.user_id;
  if (body.tools && body.tools.length > 0) {
    overrides.tools = body.tools.map((tool) => ({
      type: 'function' as const,
      function: {
        name: tool.name,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        parameters: tool.input_schema,
      },
    }));
  }
  if (body.tool_choice) Object.assign(overrides, toolChoiceOf(body.tool_choice));
  if (body.thinking) overrides.reasoning_effort = body.thinking.type === 'disabled' ? 'none' : effortFor(body.thinking.budget_tokens);
  return overrides;
}

function toolChoiceOf(choice: ToolChoiceParam): RequestOverrides {
  const single = 'disable_parallel_tool_use' in choice && choice.disable_parallel_tool_use ? { parallel_tool_calls: false } : {};
  if (choice.type === 'auto') return { tool_choice: 'auto', ...single };
  if (choice.type === 'any') return { tool_choice: 'required', ...single };
  if (choice.type === 'none') return { tool_choice: 'none' };
  return { tool_choice: { type: 'function', function: { name: choice.name } }, ...single };
}

const EFFORTS = Object.entries(ANTHROPIC_THINKING_BUDGET).sort(([, a], [, b]) => b - a) as Array<
  [Exclude<ReasoningEffort, 'none'>, number]
>;

/** The largest effort whose budget fits in `budget` (the schema holds it to 1024 or more: at least `minimal`). */
export function effortFor(budget: number): ReasoningEffort {
  return (EFFORTS.find(([, tokens]) => tokens <= budget) ?? EFFORTS[EFFORTS.length - 1])[0];
}
