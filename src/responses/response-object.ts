import type { ChatCompletion, CompletionUsage, ReasoningFields } from '../providers';

/**
 * The Response object of the Open Responses specification and OpenAI's Responses API (the SDK's
 * `resources/responses` Response), built from a chat completion: Parley calls every provider in
 * the chat-completion format and translates (docs/openai-conversations.md, "Responses"). Every
 * field the specification requires is here; response-base.ts is the one place that fills them.
 */
export interface ResponseBase {
  id: string;
  created_at: number;
  model: string;
  instructions: string | null;
  metadata: Record<string, string>;
  tools: unknown[];
  tool_choice: unknown;
  /** The effective sampling parameters (request, else the deployment's settings, else the API's defaults). */
  temperature: number;
  top_p: number;
  presence_penalty: number;
  frequency_penalty: number;
  top_logprobs: number;
  max_output_tokens: number | null;
  max_tool_calls: number | null;
  previous_response_id: string | null;
  conversation: { id: string } | null;
  text: { format: Record<string, unknown> };
  truncation: 'auto' | 'disabled';
  parallel_tool_calls: boolean;
  reasoning: { effort: string | null; summary: string | null };
  user: string | null;
  safety_identifier: string | null;
  prompt_cache_key: string | null;
  service_tier: string;
  background: boolean;
  store: boolean;
}

export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  logprobs: unknown[];
}
export interface OutputMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  status: 'in_progress' | 'completed' | 'incomplete';
  content: OutputText[];
}
export interface OutputFunctionCall {
  id: string;
  type: 'function_call';
  status: 'in_progress' | 'completed' | 'incomplete';
  call_id: string;
  name: string;
  arguments: string;
}
/** A model's reasoning (providers/reasoning.ts): its text as one `summary_text` part. */
export interface OutputReasoning {
  id: string;
  type: 'reasoning';
  status?: 'in_progress' | 'completed' | 'incomplete';
  summary: { type: 'summary_text'; text: string }[];
  /** Anthropic's signature of the thinking, with `include: ["reasoning.encrypted_content"]`. */
  encrypted_content?: string;
}
export type OutputItem = OutputMessage | OutputFunctionCall | OutputReasoning;

/** What the request's `include` asks to be added to the output. */
export interface OutputOptions {
  encryptedReasoning: boolean;
}

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface ResponseObject extends Omit<ResponseBase, 'store'> {
  object: 'response';
  status: ResponseStatus;
  /** When the response completed (Unix seconds); null until then and for incomplete or failed ones. */
  completed_at: number | null;
  output: OutputItem[];
  output_text: string;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  usage: ResponseUsage | null;
  store: boolean;
}

const ID_PREFIX: Record<OutputItem['type'], string> = { message: 'msg', function_call: 'fc', reasoning: 'rs' };

/** Output item ids: the response id's hex digits, then the item's place (`rs_<hex>_0`, `msg_<hex>_1`, `fc_<hex>_2`). */
export const outputItemId = (responseId: string, type: OutputItem['type'], index: number) =>
  `${ID_PREFIX[type]}_${responseId.replace(/^resp_/, '')}_${index}`;

export function usageOf(usage: CompletionUsage | undefined | null): ResponseUsage | null {
  if (!usage) return null;
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens,
  };
}

/** `length` → incomplete (max_output_tokens), `content_filter` → incomplete; anything else completed. */
export function statusOf(finishReason: string | null | undefined): Pick<ResponseObject, 'status' | 'incomplete_details'> {
  if (finishReason === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finishReason === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

export const outputTextOf = (output: OutputItem[]) =>
  output.flatMap((item) => (item.type === 'message' ? item.content.map((part) => part.text) : [])).join('');

/** The response for a finished completion: a message item (when there is text), then one function_call item per tool call. */
export function responseOf(
  base: ResponseBase,
  completion: ChatCompletion,
  options: OutputOptions = { encryptedReasoning: false },
): ResponseObject {
  const choice = completion.choices[0];
  const message = choice?.message as (ChatCompletion.Choice['message'] & ReasoningFields) | undefined;
  const { status, incomplete_details } = statusOf(choice?.finish_reason);
  const itemStatus = status === 'completed' ? 'completed' : 'incomplete';
  const output: OutputItem[] = [];
  if (message?.reasoning_content) {
    const signature = options.encryptedReasoning && message.reasoning_signature ? { encrypted_content: message.reasoning_signature } : {};
    output.push({
      id: outputItemId(base.id, 'reasoning', 0),
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: message.reasoning_content }],
      ...signature,
    });
  }
  if (message?.content) {
    output.push({
      id: outputItemId(base.id, 'message', output.length),
      type: 'message',
      role: 'assistant',
      status: itemStatus,
      content: [{ type: 'output_text', text: message.content, annotations: [], logprobs: [] }],
    });
  }
  // `max_tool_calls`: the calls past it are not part of the response (docs/openai-conversations.md).
  for (const call of (message?.tool_calls ?? []).slice(0, base.max_tool_calls ?? undefined)) {
    if (call.type !== 'function') continue;
    output.push({
      id: outputItemId(base.id, 'function_call', output.length),
      type: 'function_call',
      status: 'completed',
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    });
  }
  return responseFrom(base, {
    object: 'response',
    status,
    completed_at: completedAt(status),
    output,
    output_text: outputTextOf(output),
    error: null,
    incomplete_details,
    usage: usageOf(completion.usage),
  });
}

type ResponseRest = Omit<ResponseObject, keyof ResponseBase>;

/**
 * `{ ...base, ...rest }` written out as one object literal, in the same key order. V8 (Node 20)
 * does not cache the shape of an object that adds keys to a spread: `{ ...base, object, … }`
 * took ~20 µs per Response, a literal 0.04 µs (docs/performance.md).
 */
function responseFrom(base: ResponseBase, rest: ResponseRest): ResponseObject {
  return {
    id: base.id,
    created_at: base.created_at,
    model: base.model,
    instructions: base.instructions,
    metadata: base.metadata,
    tools: base.tools,
    tool_choice: base.tool_choice,
    temperature: base.temperature,
    top_p: base.top_p,
    presence_penalty: base.presence_penalty,
    frequency_penalty: base.frequency_penalty,
    top_logprobs: base.top_logprobs,
    max_output_tokens: base.max_output_tokens,
    max_tool_calls: base.max_tool_calls,
    previous_response_id: base.previous_response_id,
    conversation: base.conversation,
    text: base.text,
    truncation: base.truncation,
    parallel_tool_calls: base.parallel_tool_calls,
    reasoning: base.reasoning,
    user: base.user,
    safety_identifier: base.safety_identifier,
    prompt_cache_key: base.prompt_cache_key,
    service_tier: base.service_tier,
    background: base.background,
    store: base.store,
    object: rest.object,
    status: rest.status,
    completed_at: rest.completed_at,
    output: rest.output,
    output_text: rest.output_text,
    error: rest.error,
    incomplete_details: rest.incomplete_details,
    usage: rest.usage,
  };
}

export const completedAt = (status: ResponseStatus): number | null => (status === 'completed' ? Math.floor(Date.now() / 1000) : null);

/** The Response before any output (`response.created`, `response.in_progress`). */
export const pendingResponse = (base: ResponseBase): ResponseObject =>
  responseFrom(base, {
    object: 'response',
    status: 'in_progress',
    completed_at: null,
    output: [],
    output_text: '',
    error: null,
    incomplete_details: null,
    usage: null,
  });
