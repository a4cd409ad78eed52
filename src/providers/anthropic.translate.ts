/**
 * Chat-completion format <-> Anthropic Messages API, both ways, for whole requests and answers
 * (streams: anthropic.stream.ts). Pure functions, no I/O.
 *
 * Translated: `max_completion_tokens` (else `max_tokens`) → `max_tokens`, `stop` → `stop_sequences`,
 * `parallel_tool_calls: false` → `disable_parallel_tool_use`, `response_format` json_schema →
 * `output_config.format`, `user` (else `safety_identifier`) → `metadata.user_id`, system and
 * developer messages → `system`, `file` parts (PDF or plain text) → `document` blocks,
 * `reasoning_effort` → extended `thinking` (thinking blocks ↔ `reasoning_content` and
 * `reasoning_signature`, reasoning.ts).
 * Not forwarded, because the Messages API has no equivalent or rejects them (AnthropicProvider's
 * `unsupportedParam` names them for the /v1 surface): `temperature` and `top_p` (API version
 * 2026-10-21, which @anthropic-ai/sdk 1.x speaks, answers 400 to any sampling parameter),
 * `presence_penalty`, `frequency_penalty`, `seed`, `n` > 1, `response_format` json_object,
 * `prompt_cache_key`, a `service_tier` other than `auto`/`default`, and Parley's own `metadata`.
 */
import type {
  ContentBlockParam,
  DocumentBlockParam,
  ImageBlockParam,
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  StopReason,
  Tool,
  ToolChoice,
} from '@anthropic-ai/sdk/resources/messages';

import { contentText } from './message-text';
import type { ChatCompletion, ChatCompletionMessageParam, ChatCompletionTool, ProviderRequest, StopSequenceField } from './provider.types';
import { ProviderError } from './provider.types';
import { ANTHROPIC_THINKING_BUDGET, ReasoningFields } from './reasoning';
import { completionUsageOf, tokensFromAnthropic } from './token-usage';

/** Anthropic requires max_tokens; this is used when the request has none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 1024;
/** The Messages API's smallest extended-thinking budget. */
const MIN_THINKING_BUDGET = 1024;

const IMAGE_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];
type FinishReason = ChatCompletion.Choice['finish_reason'];
type AssistantParam = Extract<ChatCompletionMessageParam, { role: 'assistant' }>;
type UserParam = Extract<ChatCompletionMessageParam, { role: 'user' }>;

const unsupported = (what: string) =>
  new ProviderError('bad_request', `The anthropic provider cannot send ${what}`, { provider: 'anthropic' });

/** Request fields the Messages API (version 2026-10-21) has no place for or answers 400 to. */
const UNSUPPORTED = ['temperature', 'top_p', 'seed', 'presence_penalty', 'frequency_penalty', 'prompt_cache_key'] as const;

/** The first field of `req` the Messages API cannot honour as asked (the list above); AnthropicProvider's `unsupportedParam`. */
export function anthropicUnsupportedParam(req: ProviderRequest): string | undefined {
  if (req.n !== undefined && req.n > 1) return 'n';
  for (const param of UNSUPPORTED) if (req[param] !== undefined && req[param] !== null) return param;
  if (req.response_format?.type === 'json_object') return 'response_format';
  if (req.service_tier === 'flex' || req.service_tier === 'priority') return 'service_tier';
  return undefined;
}

export function toAnthropicBody(req: ProviderRequest): MessageCreateParamsNonStreaming {
  const system: string[] = [];
  const turns: Array<{ role: 'user' | 'assistant'; content: ContentBlockParam[] }> = [];
  // Anthropic wants alternating turns: consecutive tool results (and text after them) form one user turn.
  const append = (role: 'user' | 'assistant', blocks: ContentBlockParam[]) => {
    const last = turns[turns.length - 1];
    if (!blocks.length) return;
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const message of req.messages) {
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(contentText(message.content));
        break;
      case 'user':
        append('user', userBlocks(message.content));
        break;
      case 'assistant':
        append('assistant', assistantBlocks(message));
        break;
      case 'tool':
        append('user', [{ type: 'tool_result', tool_use_id: message.tool_call_id, content: contentText(message.content) }]);
        break;
      default:
        throw unsupported(`"${message.role}" messages (deprecated function calling); use tools`);
    }
  }
  const tools = req.tools?.length ? req.tools.map(toAnthropicTool) : undefined;
  const toolChoice = tools ? toAnthropicToolChoice(req.tool_choice, req.parallel_tool_calls) : undefined;
  const schema = req.response_format?.type === 'json_schema' ? req.response_format.json_schema.schema : undefined;
  const stop = req.stop === undefined || req.stop === null ? undefined : Array.isArray(req.stop) ? req.stop : [req.stop];
  const { maxTokens, thinking } = thinkingOf(req);
  return {
    model: req.model,
    max_tokens: maxTokens,
    ...(thinking ? { thinking } : {}),
    ...(system.some(Boolean) ? { system: system.filter(Boolean).join('\n\n') } : {}),
    messages: turns.map(simplifyTurn),
    ...(stop ? { stop_sequences: stop } : {}),
    ...(tools ? { tools } : {}),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
    ...(schema ? { output_config: { format: { type: 'json_schema' as const, schema } } } : {}),
    ...(req.user !== undefined
      ? { metadata: { user_id: req.user } }
      : req.safety_identifier !== undefined
        ? { metadata: { user_id: req.safety_identifier } }
        : {}),
  };
}

/**
 * `reasoning_effort` → extended thinking with the effort's budget (reasoning.ts). The budget is
 * part of `max_tokens` (as reasoning tokens are of OpenAI's `max_output_tokens`): without a
 * requested maximum, `max_tokens` is the budget plus the default answer length; with one, the
 * budget shrinks to fit under it, and a maximum too small for the smallest budget is refused.
 */
function thinkingOf(req: ProviderRequest): { maxTokens: number; thinking?: { type: 'enabled'; budget_tokens: number } } {
  const asked = req.max_completion_tokens ?? req.max_tokens;
  const effort = req.reasoning_effort;
  if (!effort || effort === 'none') return { maxTokens: asked ?? ANTHROPIC_DEFAULT_MAX_TOKENS };
  const budget = ANTHROPIC_THINKING_BUDGET[effort];
  if (asked === undefined)
    return { maxTokens: budget + ANTHROPIC_DEFAULT_MAX_TOKENS, thinking: { type: 'enabled', budget_tokens: budget } };
  if (asked <= MIN_THINKING_BUDGET)
    throw unsupported(`reasoning with a maximum of ${asked} output tokens (extended thinking needs more than ${MIN_THINKING_BUDGET})`);
  return { maxTokens: asked, thinking: { type: 'enabled', budget_tokens: Math.min(budget, asked - 1) } };
}

/** A turn that is one text block is sent as a plain string, as people write it. */
function simplifyTurn(turn: { role: 'user' | 'assistant'; content: ContentBlockParam[] }): MessageParam {
  const [only] = turn.content;
  return turn.content.length === 1 && only.type === 'text' ? { role: turn.role, content: only.text } : turn;
}

function userBlocks(content: UserParam['content'] | null): ContentBlockParam[] {
  // A thread message may hold `content: null` (Create Thread Message allows it): no blocks.
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  return content.flatMap((part): ContentBlockParam[] => {
    if (part.type === 'text') return part.text ? [{ type: 'text', text: part.text }] : [];
    if (part.type === 'image_url') return [imageBlock(part.image_url.url)];
    if (part.type === 'file') return [documentBlock(part.file as FilePart)];
    throw unsupported(`"${part.type}" content parts`);
  });
}

/** A chat-completion `file` part (`file_url` is Parley's own, from a Responses `input_file`). */
type FilePart = { filename?: string; file_data?: string; file_url?: string; file_id?: string };

/**
 * A file as a `document` block: a PDF (base64 data URL, or by URL) or plain text; other media
 * types and uploaded-file ids are refused (docs/openai-conversations.md, "Input files").
 */
function documentBlock(file: FilePart): DocumentBlockParam {
  const title = file.filename ? { title: file.filename } : {};
  if (file.file_url) return { type: 'document', source: { type: 'url', url: file.file_url }, ...title };
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(file.file_data ?? '');
  if (!data) throw unsupported(file.file_id ? 'uploaded file ids (send file_data or file_url)' : 'a file that is not a base64 data: URL');
  const mediaType = data[1].toLowerCase();
  if (mediaType === 'application/pdf')
    return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: data[2] }, ...title };
  if (mediaType === 'text/plain')
    return {
      type: 'document',
      source: { type: 'text', media_type: 'text/plain', data: Buffer.from(data[2], 'base64').toString('utf8') },
      ...title,
    };
  throw unsupported(`files of type ${mediaType} (PDF and plain text only)`);
}

function imageBlock(url: string): ImageBlockParam {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (data) {
    const mediaType = data[1].toLowerCase();
    if (!IMAGE_MEDIA_TYPES.includes(mediaType as ImageMediaType)) throw unsupported(`images of type ${mediaType}`);
    return { type: 'image', source: { type: 'base64', media_type: mediaType as ImageMediaType, data: data[2] } };
  }
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw unsupported('an image URL that is neither http(s) nor a base64 data: URL');
}

function assistantBlocks(message: AssistantParam): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = [];
  const text =
    typeof message.content === 'string'
      ? message.content
      : (message.content ?? []).map((part) => (part.type === 'text' ? part.text : part.refusal)).join('');
  // A thinking block goes back with its signature (Anthropic requires it before tool use it led to).
  const reasoning = message as AssistantParam & ReasoningFields;
  if (reasoning.reasoning_content && reasoning.reasoning_signature)
    blocks.push({ type: 'thinking', thinking: reasoning.reasoning_content, signature: reasoning.reasoning_signature });
  if (text) blocks.push({ type: 'text', text });
  for (const call of message.tool_calls ?? []) {
    if (call.type !== 'function') throw unsupported('custom tool calls');
    blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: parseArguments(call.id, call.function.arguments) });
  }
  return blocks;
}

function parseArguments(id: string, args: string): Record<string, unknown> {
  if (!args.trim()) return {};
  let input: unknown;
  try {
    input = JSON.parse(args);
  } catch {
    throw unsupported(`tool call ${id}: its arguments are not JSON`);
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw unsupported(`tool call ${id}: its arguments are not a JSON object`);
  return input as Record<string, unknown>;
}

function toAnthropicTool(tool: ChatCompletionTool): Tool {
  if (tool.type !== 'function') throw unsupported('custom tools');
  const { name, description, parameters } = tool.function;
  const inputSchema = (parameters ?? { type: 'object', properties: {} }) as Tool.InputSchema;
  return { name, ...(description ? { description } : {}), input_schema: inputSchema };
}

/** Sent only when asked for: a tool_choice, or parallel_tool_calls false (then with `auto`). */
function toAnthropicToolChoice(choice: ProviderRequest['tool_choice'], parallel: boolean | undefined): ToolChoice | undefined {
  const single = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined) return parallel === false ? { type: 'auto', ...single } : undefined;
  if (choice === 'auto') return { type: 'auto', ...single };
  if (choice === 'required') return { type: 'any', ...single };
  if (choice === 'none') return { type: 'none' };
  if (choice.type === 'function') return { type: 'tool', name: choice.function.name, ...single };
  throw unsupported(`tool_choice of type "${choice.type}"`);
}

export function finishReasonFor(stop: StopReason | null | undefined): FinishReason {
  switch (stop) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default: // end_turn, stop_sequence, pause_turn
      return 'stop';
  }
}

export function fromAnthropicMessage(message: Message): ChatCompletion {
  const text = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  const thinking = message.content.flatMap((block) => (block.type === 'thinking' ? [block] : []));
  const reasoning: ReasoningFields = thinking.length
    ? {
        reasoning_content: thinking.map((block) => block.thinking).join('\n'),
        reasoning_signature: thinking[thinking.length - 1].signature,
      }
    : {};
  const toolCalls = message.content.flatMap((block) =>
    block.type === 'tool_use'
      ? [{ id: block.id, type: 'function' as const, function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } }]
      : [],
  );
  // Which stop sequence ended it (provider.types.ts, StopSequenceField): what /v1/messages answers.
  const stop: StopSequenceField =
    message.stop_reason === 'stop_sequence' && message.stop_sequence ? { stop_sequence: message.stop_sequence } : {};
  return {
    id: message.id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: message.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text || (toolCalls.length ? null : ''),
          refusal: null,
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
          ...reasoning,
        },
        logprobs: null,
        finish_reason: finishReasonFor(message.stop_reason),
        ...stop,
      },
    ],
    usage: completionUsageOf(tokensFromAnthropic(message.usage)),
  };
}
