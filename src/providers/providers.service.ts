/**
 * The one entry point the rest of Parley uses to call a model: picks the adapter by
 * `creds.type`. Call defaults (timeout, retries, Retry-After cap) are fixed at construction —
 * `ProvidersModule.register(...)` supplies them; this class reads no environment — and each call
 * may override timeout and retries through ProviderCallOptions.
 */
import { Inject, Injectable, Logger, OnApplicationShutdown, Optional } from '@nestjs/common';

import { AnthropicProvider } from './anthropic.provider';
import { LocalProvider } from './local.provider';
import { OpenAIProvider } from './openai.provider';
import {
  EmbeddingRequest,
  EmbeddingResult,
  InputTokenCount,
  PROVIDER_TYPES,
  ProviderAdapter,
  ProviderCallOptions,
  ProviderCredentials,
  ProviderError,
  ProviderRequest,
  ProviderResult,
  ProviderStream,
  ProviderType,
} from './provider.types';
import { DEFAULT_UPSTREAM_SETTINGS, UpstreamHttp, UpstreamSettings } from './upstream-http';

/** timeoutMs (60 s), maxRetries (2), maxRetryAfterSeconds (30), allowedHosts (none) unless configured. */
export type ProviderDefaults = UpstreamSettings;
export const PROVIDER_DEFAULTS = Symbol('PROVIDER_DEFAULTS');

@Injectable()
export class ProvidersService implements OnApplicationShutdown {
  readonly defaults: ProviderDefaults;
  private readonly adapters: Record<ProviderType, ProviderAdapter>;
  /** The connection pools of both HTTP adapters. */
  private readonly http: UpstreamHttp;

  constructor(@Optional() @Inject(PROVIDER_DEFAULTS) defaults?: Partial<ProviderDefaults>) {
    this.defaults = { ...DEFAULT_UPSTREAM_SETTINGS, ...defaults };
    const logger = new Logger('OutboundPolicy');
    this.http = new UpstreamHttp(this.defaults, (err) =>
      logger.warn(`Provider call refused: ${err.message}; an operator may allow it with PROVIDER_ALLOWED_HOSTS`),
    );
    this.adapters = {
      local: new LocalProvider(),
      openai: new OpenAIProvider(this.http),
      anthropic: new AnthropicProvider(this.http),
    };
  }

  /** After the HTTP server has drained: idle upstream connections are closed, not waited out. */
  async onApplicationShutdown(): Promise<void> {
    await this.http.destroy();
  }

  /** Throws a bad_request ProviderError for a type Parley has no adapter for. */
  adapterFor(type: string): ProviderAdapter {
    if (!(PROVIDER_TYPES as readonly string[]).includes(type)) {
      throw new ProviderError('bad_request', `Unknown provider type "${type}"; known types: ${PROVIDER_TYPES.join(', ')}`);
    }
    return this.adapters[type as ProviderType];
  }

  complete(req: ProviderRequest, creds: ProviderCredentials, opts?: ProviderCallOptions): Promise<ProviderResult> {
    return this.adapterFor(creds.type).complete(req, creds, opts);
  }

  stream(req: ProviderRequest, creds: ProviderCredentials, opts?: ProviderCallOptions): ProviderStream {
    return this.adapterFor(creds.type).stream(req, creds, opts);
  }

  /**
   * Embeddings through the adapter of `creds.type`; an adapter with no embeddings API (Anthropic)
   * is a bad_request naming why (the surface checks `embeddingSupport` first).
   */
  embed(req: EmbeddingRequest, creds: ProviderCredentials, opts?: ProviderCallOptions): Promise<EmbeddingResult> {
    const adapter = this.adapterFor(creds.type);
    if (!adapter.embed)
      return Promise.reject(new ProviderError('bad_request', `${creds.type} providers have no embeddings API`, { param: 'model' }));
    return adapter.embed(req, creds, opts);
  }

  /** What a provider type embeds: nothing (no embeddings API), texts, or texts and token arrays. */
  embeddingSupport(type: string): 'none' | 'text' | 'text_and_tokens' {
    const adapter = this.adapterFor(type);
    if (!adapter.embed) return 'none';
    return adapter.embedsTokenArrays ? 'text_and_tokens' : 'text';
  }

  countInputTokens(req: ProviderRequest, creds: ProviderCredentials, opts?: ProviderCallOptions): Promise<InputTokenCount> {
    return this.adapterFor(creds.type).countInputTokens(req, creds, opts);
  }
}
