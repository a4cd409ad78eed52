/**
 * The provider layer's contract. The wire format is the OpenAI chat-completion format, typed with
 * the official `openai` package, whatever the upstream actually speaks: every adapter translates
 * to and from it.
 */
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { ResponseFormatJSONObject, ResponseFormatJSONSchema, ResponseFormatText } from 'openai/resources/shared';

import type { TokenCounts } from './token-usage';

export type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
  CompletionUsage,
};

export type ProviderType = 'local' | 'openai' | 'anthropic';
export const PROVIDER_TYPES: readonly ProviderType[] = ['local', 'openai', 'anthropic'];

/** What the invocation layer asks of a model: template, history and request merged already. */
export interface ProviderRequest {
  model: string;
  messages: ChatCompletionMessageParam[];
  max_tokens?: number;
  /** OpenAI's newer name for max_tokens; an adapter sends whichever its upstream expects. */
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  seed?: number;
  stop?: string | string[];
  user?: string;
  /** Number of choices; only the OpenAI-shaped /v1 surface sends more than one. */
  n?: number;
  tools?: ChatCompletionTool[];
  tool_choice?: ChatCompletionToolChoiceOption;
  parallel_tool_calls?: boolean;
  response_format?: ResponseFormatText | ResponseFormatJSONObject | ResponseFormatJSONSchema;
  /** OpenAI's end-user identifier for abuse detection (Anthropic: `metadata.user_id` when `user` is not set). */
  safety_identifier?: string;
  /** OpenAI's prompt-cache routing key. */
  prompt_cache_key?: string;
  /** How hard a reasoning model thinks (OpenAI's `reasoning_effort`; Anthropic: extended thinking, see reasoning.ts). */
  reasoning_effort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';
  /** OpenAI's processing tier (`auto`, `default`, `flex`, `priority`). */
  service_tier?: 'auto' | 'default' | 'flex' | 'priority';
  /**
   * Parley's own request metadata (for the request log). Adapters do not forward it upstream:
   * it is the caller's data, and OpenAI-compatible servers reject or misuse unknown fields.
   */
  metadata?: Record<string, string>;
}

/**
 * Parley's field on a chat-format choice (and on the choice of a stream's finishing chunk): the
 * stop sequence that ended the answer, where the provider tells which (Anthropic's `stop_sequence`,
 * the local provider's cut). OpenAI's format has no such field and the OpenAI-shaped surfaces do
 * not show it; `/v1/messages` answers it as its `stop_sequence` (src/anthropic).
 */
export interface StopSequenceField {
  stop_sequence?: string;
}

export interface ProviderCredentials {
  type: ProviderType;
  /** OpenAI-compatible: up to and including `/v1`. Anthropic: the host (`https://api.anthropic.com`). */
  baseUrl?: string;
  apiKey?: string;
}

export interface ProviderCallOptions {
  /** Aborting it aborts the upstream HTTP request (and any retry not yet started). */
  signal?: AbortSignal;
  /** Per attempt, until response headers; for streams also the longest gap between two events. */
  timeoutMs?: number;
  /** Retries on 408/409/429/5xx and connection errors, before any response byte was streamed. */
  maxRetries?: number;
}

export interface ProviderResult {
  completion: ChatCompletion;
  /** The body sent upstream, for the request log. */
  providerRequest: object;
  /** The body received from upstream, for the request log. */
  providerResponse: object;
  /** The usage by kind of token, when the upstream reported it (completion.usage is its OpenAI-shaped sum). */
  tokens?: TokenCounts;
}

/**
 * A streamed completion. The upstream request starts on the first `next()`; a failure before any
 * chunk (429, 5xx after retries, timeout) rejects that first `next()` with a ProviderError, so the
 * caller can pull the first chunk before it commits its own response headers. Iterate once.
 * Usage-only chunks are not yielded: token usage is on `tokens` (by kind) and `usage` (OpenAI's
 * shape) once iteration has ended; after a failure mid-stream they hold what was reported so far.
 */
export interface ProviderStream extends AsyncIterable<ChatCompletionChunk> {
  readonly providerRequest: object;
  readonly tokens: TokenCounts | undefined;
  readonly usage: CompletionUsage | undefined;
}

/** An input token count (docs/openai-conversations.md, "Input token counts"); `exact: false` is an estimate. */
export interface InputTokenCount {
  input_tokens: number;
  exact: boolean;
}

/**
 * What `/v1/embeddings` asks of a provider (docs/embeddings.md): one vector per input, in order.
 * `input` is texts, or token arrays (only adapters whose `embedsTokenArrays` is true take them).
 */
export interface EmbeddingRequest {
  model: string;
  input: string[] | number[][];
  /** The length of each vector, when the caller asks for one (OpenAI's `dimensions`). */
  dimensions?: number;
  user?: string;
}

export interface EmbeddingResult {
  /** One vector per input, in the inputs' order. */
  vectors: number[][];
  /** The model the provider says ran. */
  model: string;
  /** Input tokens, as the provider counted them (the local provider counts words). */
  promptTokens: number;
  /** The body sent upstream with its `input` left out (the request log keeps the inputs once, in its request data). */
  providerRequest: object;
}

export interface ProviderAdapter {
  readonly type: ProviderType;
  /** Embeddings (`/v1/embeddings`); absent on an adapter whose upstream has no embeddings API (Anthropic). */
  embed?(req: EmbeddingRequest, creds: ProviderCredentials, opts?: ProviderCallOptions): Promise<EmbeddingResult>;
  /** Whether `embed` takes token arrays as `input` (else only texts). */
  readonly embedsTokenArrays?: boolean;
  /** How many input tokens `req` would cost: by the provider's own count or tokenizer where there is one, else an estimate. */
  countInputTokens(req: ProviderRequest, creds: ProviderCredentials, opts?: ProviderCallOptions): Promise<InputTokenCount>;
  /**
   * The first request field (by its ProviderRequest name, e.g. `n`, `response_format`) this
   * adapter cannot honour as asked, or undefined. The OpenAI-shaped /v1 surface answers 400 with
   * that `param` instead of dropping the field; the spec's invoke endpoints do not ask.
   */
  unsupportedParam(req: ProviderRequest): string | undefined;
  complete(req: ProviderRequest, creds: ProviderCredentials, opts?: ProviderCallOptions): Promise<ProviderResult>;
  stream(req: ProviderRequest, creds: ProviderCredentials, opts?: ProviderCallOptions): ProviderStream;
}

/**
 * - `upstream`: the provider answered with an error (5xx, 401/403 of the provider key, error event).
 * - `bad_request`: the provider (or Parley's translation) rejected what was asked (4xx, unknown model).
 * - `aborted`: the caller's signal fired (client went away); recorded as a cancellation.
 */
export type ProviderErrorKind = 'upstream' | 'timeout' | 'rate_limited' | 'connection' | 'bad_request' | 'aborted';

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly kind: ProviderErrorKind;
  /** HTTP status the upstream answered with, when it answered. */
  readonly status?: number;
  /** From the upstream's Retry-After / retry-after-ms header, rounded up to whole seconds. */
  readonly retryAfterSeconds?: number;
  readonly provider?: ProviderType;
  /**
   * The part of `message` that is the upstream's own text (its error message, or the data it sent
   * that could not be parsed). It may quote the prompt, so a call that asked not to be recorded
   * logs `recordableMessage` instead.
   */
  readonly upstreamText?: string;
  /** For bad_request: the request field at fault, when one is (OpenAI's error `param`). */
  readonly param?: string;

  constructor(
    kind: ProviderErrorKind,
    message: string,
    extra: {
      status?: number;
      retryAfterSeconds?: number;
      provider?: ProviderType;
      cause?: unknown;
      upstreamText?: string;
      param?: string;
    } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.kind = kind;
    if (extra.status !== undefined) this.status = extra.status;
    if (extra.retryAfterSeconds !== undefined) this.retryAfterSeconds = extra.retryAfterSeconds;
    if (extra.provider !== undefined) this.provider = extra.provider;
    if (extra.upstreamText) this.upstreamText = extra.upstreamText;
    if (extra.param !== undefined) this.param = extra.param;
  }

  /** The message without the upstream's own text: what may be logged for a doNotRecord call. */
  get recordableMessage(): string {
    return this.upstreamText ? this.message.split(this.upstreamText).join('[not recorded]') : this.message;
  }
}

const STATUS_BY_KIND: Record<ProviderErrorKind, number> = {
  upstream: 502,
  connection: 502,
  timeout: 504,
  rate_limited: 429,
  bad_request: 400,
  // nginx's "client closed request": nobody reads it, but the request log and metrics do.
  aborted: 499,
};

/** The HTTP status Parley answers with for a provider failure. */
export function httpStatusFor(err: ProviderError): number {
  return STATUS_BY_KIND[err.kind];
}
