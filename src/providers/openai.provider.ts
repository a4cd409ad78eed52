/**
 * Any OpenAI-compatible chat-completions endpoint (OpenAI, Azure-style gateways, vLLM, Ollama,
 * llama.cpp server, OpenRouter), through the official `openai` SDK. The request is passed through;
 * the answer is normalised to the ChatCompletion shape. Timeouts, retries and their backoff are
 * the SDK's (see upstream-http.ts).
 */
import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from 'openai/resources/chat/completions';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionMessageParam, CompletionUsage } from './provider.types';
import {
  ProviderAdapter,
  ProviderCallOptions,
  ProviderCredentials,
  ProviderError,
  ProviderRequest,
  ProviderResult,
  ProviderStream,
} from './provider.types';
import { ChunkStream, StreamWatch } from './provider-stream';
import {
  cappedRetryAfterFetch,
  ClientCache,
  DEFAULT_UPSTREAM_SETTINGS,
  sdkRequestOptions,
  toProviderError,
  UpstreamAdapterSettings,
} from './upstream-http';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export class OpenAIProvider implements ProviderAdapter {
  readonly type = 'openai' as const;

  /** Every field is passed through: the upstream itself answers for what it cannot do. */
  unsupportedParam(): string | undefined {
    return undefined;
  }
  private readonly clients = new ClientCache<OpenAI>();

  constructor(private readonly settings: UpstreamAdapterSettings = DEFAULT_UPSTREAM_SETTINGS) {}

  async complete(req: ProviderRequest, creds: ProviderCredentials, opts: ProviderCallOptions = {}): Promise<ProviderResult> {
    const body = toOpenAIBody(req);
    try {
      const raw = await this.client(creds).chat.completions.create(body, sdkRequestOptions(this.settings, opts, opts.signal));
      return { completion: normaliseCompletion(raw, req.model), providerRequest: body, providerResponse: raw };
    } catch (err) {
      throw toProviderError(err, 'openai', opts.signal);
    }
  }

  stream(req: ProviderRequest, creds: ProviderCredentials, opts: ProviderCallOptions = {}): ProviderStream {
    // include_usage: the upstream appends a usage-only chunk, kept on `stream.usage`, not yielded.
    const body: ChatCompletionCreateParamsStreaming = { ...toOpenAIBody(req), stream: true, stream_options: { include_usage: true } };
    return new ChunkStream(body, (sink) => this.chunks(body, creds, opts, sink));
  }

  private async *chunks(
    body: ChatCompletionCreateParamsStreaming,
    creds: ProviderCredentials,
    opts: ProviderCallOptions,
    sink: ChunkStream,
  ): AsyncGenerator<ChatCompletionChunk> {
    const watch = new StreamWatch('openai', opts.signal, opts.timeoutMs ?? this.settings.timeoutMs);
    let finished = false;
    try {
      const upstream = await this.client(creds).chat.completions.create(body, sdkRequestOptions(this.settings, opts, watch.signal));
      watch.touch();
      for await (const chunk of upstream) {
        watch.touch();
        if (chunk.usage) sink.usage = normaliseUsage(chunk.usage);
        if (!chunk.choices?.length) continue;
        finished ||= chunk.choices.some((choice) => choice.finish_reason);
        // Once the caller has aborted, chunks already buffered are not handed out.
        const stopped = watch.stopReason();
        if (stopped) throw stopped;
        yield normaliseChunk(chunk, body.model);
      }
    } catch (err) {
      throw watch.stopReason() ?? toProviderError(err, 'openai', opts.signal);
    } finally {
      watch.dispose();
    }
    // The SDK ends an aborted stream silently: say why it stopped.
    const stopped = watch.stopReason();
    if (stopped) throw stopped;
    if (!finished) {
      throw new ProviderError('upstream', 'openai upstream ended the stream without a finish_reason', { provider: 'openai' });
    }
  }


  private client(creds: ProviderCredentials): OpenAI {
    const baseURL = creds.baseUrl || OPENAI_DEFAULT_BASE_URL;
    return this.clients.get(baseURL, creds.apiKey, () =>
      new OpenAI({
        baseURL,
        // Everything explicit, so the SDK reads no OPENAI_* environment variable for them.
        // Keyless local servers (Ollama, llama.cpp): the SDK insists on a key, the header is dropped.
        apiKey: creds.apiKey || 'unused',
        ...(creds.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
        adminAPIKey: null,
        organization: null,
        project: null,
        webhookSecret: null,
        timeout: this.settings.timeoutMs,
        maxRetries: this.settings.maxRetries,
        fetch: cappedRetryAfterFetch(this.settings.maxRetryAfterSeconds),
      }),
    );
  }
}

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
  const { tool_choice: _toolChoice, ...rest } = message as ChatCompletionMessageParam & { tool_choice?: unknown };
  if ('tool_calls' in rest && Array.isArray(rest.tool_calls) && rest.tool_calls.length === 0) delete rest.tool_calls;
  if (rest.content === null && TEXT_ROLES.has(rest.role)) return { ...rest, content: '' } as ChatCompletionMessageParam;
  return rest;
}

function normaliseUsage(usage: CompletionUsage): CompletionUsage {
  const prompt = usage.prompt_tokens ?? 0;
  const completion = usage.completion_tokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: usage.total_tokens ?? prompt + completion };
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
        },
        logprobs: choice.logprobs ?? null,
        finish_reason: choice.finish_reason ?? 'stop',
      };
    }),
    ...(raw.usage ? { usage: normaliseUsage(raw.usage) } : {}),
  };
}

function normaliseChunk(raw: ChatCompletionChunk, model: string): ChatCompletionChunk {
  return {
    id: raw.id,
    object: 'chat.completion.chunk',
    created: raw.created ?? Math.floor(Date.now() / 1000),
    model: raw.model ?? model,
    choices: raw.choices.map((choice, i) => ({
      index: choice.index ?? i,
      delta: choice.delta ?? {},
      finish_reason: choice.finish_reason ?? null,
    })),
  };
}
