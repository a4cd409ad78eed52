/**
 * Anthropic's Messages API through the official `@anthropic-ai/sdk`, translated to and from the
 * chat-completion format (anthropic.translate.ts, anthropic.stream.ts). Timeouts, retries and their backoff are the
 * SDK's (see upstream-http.ts). Note the SDK (1.x) sends the key as `Authorization: Bearer` and
 * `anthropic-version: 2026-10-21`.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsStreaming } from '@anthropic-ai/sdk/resources/messages';
import { AnthropicStreamTranslator } from './anthropic.stream';
import { fromAnthropicMessage, toAnthropicBody } from './anthropic.translate';
import type { ChatCompletionChunk } from './provider.types';
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

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

export class AnthropicProvider implements ProviderAdapter {
  readonly type = 'anthropic' as const;

  /** What the Messages API has no equivalent for (the sampling parameters: see anthropic.translate.ts). */
  unsupportedParam(req: ProviderRequest): string | undefined {
    if (req.n !== undefined && req.n > 1) return 'n';
    for (const param of ['seed', 'presence_penalty', 'frequency_penalty'] as const) if (req[param] !== undefined) return param;
    return undefined;
  }
  private readonly clients = new ClientCache<Anthropic>();

  constructor(private readonly settings: UpstreamAdapterSettings = DEFAULT_UPSTREAM_SETTINGS) {}

  async complete(req: ProviderRequest, creds: ProviderCredentials, opts: ProviderCallOptions = {}): Promise<ProviderResult> {
    const body = toAnthropicBody(req);
    try {
      const message = await this.client(creds).messages.create(body, sdkRequestOptions(this.settings, opts, opts.signal));
      return { completion: fromAnthropicMessage(message), providerRequest: body, providerResponse: message };
    } catch (err) {
      throw toProviderError(err, 'anthropic', opts.signal);
    }
  }

  stream(req: ProviderRequest, creds: ProviderCredentials, opts: ProviderCallOptions = {}): ProviderStream {
    let body: MessageCreateParamsStreaming;
    try {
      body = { ...toAnthropicBody(req), stream: true };
    } catch (err) {
      // Untranslatable input fails the first next(), like an upstream refusal would.
      return new ChunkStream({}, () => rejectWith(err));
    }
    return new ChunkStream(body, (sink) => this.chunks(body, req.model, creds, opts, sink));
  }

  private async *chunks(
    body: MessageCreateParamsStreaming,
    model: string,
    creds: ProviderCredentials,
    opts: ProviderCallOptions,
    sink: ChunkStream,
  ): AsyncGenerator<ChatCompletionChunk> {
    const translator = new AnthropicStreamTranslator(model);
    const watch = new StreamWatch('anthropic', opts.signal, opts.timeoutMs ?? this.settings.timeoutMs);
    try {
      const upstream = await this.client(creds).messages.create(body, sdkRequestOptions(this.settings, opts, watch.signal));
      watch.touch();
      for await (const event of upstream) {
        watch.touch();
        const chunks = translator.translate(event);
        sink.usage = translator.usage;
        for (const chunk of chunks) {
          // Once the caller has aborted, events already buffered are not handed out.
          const stopped = watch.stopReason();
          if (stopped) throw stopped;
          yield chunk;
        }
      }
    } catch (err) {
      throw watch.stopReason() ?? toProviderError(err, 'anthropic', opts.signal);
    } finally {
      watch.dispose();
    }
    // The SDK ends an aborted stream silently: say why it stopped.
    const stopped = watch.stopReason();
    if (stopped) throw stopped;
    if (!translator.finished) {
      throw new ProviderError('upstream', 'anthropic upstream ended the stream without a stop_reason', { provider: 'anthropic' });
    }
  }


  private client(creds: ProviderCredentials): Anthropic {
    const baseURL = creds.baseUrl || ANTHROPIC_DEFAULT_BASE_URL;
    return this.clients.get(baseURL, creds.apiKey, () =>
      new Anthropic({
        baseURL,
        // A key given in code stops the SDK from reading ANTHROPIC_* variables or credential
        // profiles. Keyless (a proxy that adds it): a placeholder key, its header dropped.
        apiKey: creds.apiKey || 'unused',
        ...(creds.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
        timeout: this.settings.timeoutMs,
        maxRetries: this.settings.maxRetries,
        fetch: cappedRetryAfterFetch(this.settings.maxRetryAfterSeconds),
      }),
    );
  }
}

// eslint-disable-next-line require-yield -- a stream whose first next() rejects
async function* rejectWith(err: unknown): AsyncGenerator<ChatCompletionChunk> {
  throw err;
}
