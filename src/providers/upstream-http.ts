/**
 * What the two SDK-backed adapters share about talking HTTP to an upstream: the fetch they give
 * their SDK client, and the mapping of the SDKs' errors to ProviderError.
 *
 * Retries are the SDKs' own (both are Stainless-generated and behave alike, see
 * `makeRequest`/`shouldRetry`/`retryRequest` in their client.ts): 408, 409, 429, >= 500 and
 * connection errors/timeouts are retried up to `maxRetries` times with exponential backoff
 * (0.5 s doubling, max 8 s, up to 25 % jitter) unless the upstream sends `x-should-retry`;
 * `retry-after-ms` / `Retry-After` (seconds or HTTP date) replace the backoff. The decision is
 * taken on the response status, before the body is read, so nothing is retried once a 2xx
 * stream has started. The SDKs do not cap Retry-After: `cappedRetryAfterFetch` does.
 */
import Anthropic, { APIError as AnthropicApiError } from '@anthropic-ai/sdk';
import OpenAI, { APIError as OpenAIApiError } from 'openai';
import { nodeHttpFetch } from './node-http-fetch';
import { ProviderCallOptions, ProviderError, ProviderType } from './provider.types';

/** Call defaults of an SDK-backed adapter; ProviderCallOptions override the first two per call. */
export interface UpstreamAdapterSettings {
  timeoutMs: number;
  maxRetries: number;
  /** Longer Retry-After waits are not sat out: the call fails as rate_limited at once. */
  maxRetryAfterSeconds: number;
}

export const DEFAULT_UPSTREAM_SETTINGS: UpstreamAdapterSettings = { timeoutMs: 60_000, maxRetries: 2, maxRetryAfterSeconds: 30 };

/** Seconds an upstream asks us to wait (`retry-after-ms`, then `Retry-After` seconds or date). */
export function retryAfterSeconds(headers: Headers | undefined): number | undefined {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return Math.ceil(ms / 1000);
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/**
 * The fetch both SDK clients get: `nodeHttpFetch` (node:http keep-alive agents, one connection
 * pool per origin shared by every client; it replaced the global fetch for speed, see
 * node-http-fetch.ts), except that an error response asking for a longer wait than `maxSeconds`
 * is marked `x-should-retry: false`: the SDK then fails at once with the status and Retry-After,
 * rather than holding the caller's request open for as long as the upstream likes.
 */
export function cappedRetryAfterFetch(maxSeconds: number) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = await nodeHttpFetch(input, init).catch((err: unknown) => {
      throw sameRealmError(err);
    });
    if (res.ok || res.headers.has('x-should-retry')) return res;
    const wait = retryAfterSeconds(res.headers);
    if (wait === undefined || wait <= maxSeconds) return res;
    try {
      res.headers.set('x-should-retry', 'false');
      return res;
    } catch {
      // The immutable headers of a real Response (nodeHttpFetch handed the request to fetch).
      const headers = new Headers(res.headers);
      headers.set('x-should-retry', 'false');
      return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
    }
  };
}

/**
 * The SDKs tell a timeout from other failures by the fetch error's `name` ("AbortError"), but their
 * castToError keeps only `instanceof Error` values: a DOMException from another realm (jest's vm
 * context, for one) becomes a nameless Error, and a timeout reads as a connection failure.
 */
function sameRealmError(err: unknown): unknown {
  if (err instanceof Error || typeof err !== 'object' || err === null) return err;
  const { name, message } = err as { name?: unknown; message?: unknown };
  const local = new Error(typeof message === 'string' ? message : String(err), { cause: err });
  if (typeof name === 'string') local.name = name;
  return local;
}

type SdkApiError = OpenAIApiError | AnthropicApiError;

function isUserAbort(err: unknown): boolean {
  return err instanceof OpenAI.APIUserAbortError || err instanceof Anthropic.APIUserAbortError;
}
function isTimeout(err: unknown): boolean {
  return err instanceof OpenAI.APIConnectionTimeoutError || err instanceof Anthropic.APIConnectionTimeoutError;
}
function isConnection(err: unknown): err is SdkApiError {
  return err instanceof OpenAI.APIConnectionError || err instanceof Anthropic.APIConnectionError;
}
function isApiError(err: unknown): err is SdkApiError {
  return err instanceof OpenAI.APIError || err instanceof Anthropic.APIError;
}

/** The upstream's own words: `error.message` of its body (both wire formats), else the SDK's text. */
function upstreamMessage(err: SdkApiError): string {
  const body = err.error as { message?: unknown; error?: { message?: unknown } } | undefined;
  const message = body?.message ?? body?.error?.message;
  if (typeof message === 'string' && message) return message;
  // Non-JSON bodies end up in the SDK message as "<status> <text>".
  return err.status ? err.message.replace(new RegExp(`^${err.status} `), '') : err.message;
}

/** Why a 4xx is the request's fault (400) rather than the provider setup's (502). */
function kindForStatus(status: number): ProviderError['kind'] {
  if (status === 429) return 'rate_limited';
  if (status === 408) return 'timeout';
  // 401/403: the stored provider key is wrong — the operator's problem, not the caller's.
  if (status >= 400 && status < 500 && status !== 401 && status !== 403) return 'bad_request';
  return 'upstream';
}

export function toProviderError(err: unknown, provider: ProviderType, signal?: AbortSignal): ProviderError {
  if (err instanceof ProviderError) return err;
  const extra = { provider, cause: err };
  if (signal?.aborted || isUserAbort(err)) {
    return new ProviderError('aborted', `${provider} request cancelled by the caller`, extra);
  }
  if (isTimeout(err)) {
    return new ProviderError('timeout', `${provider} upstream did not answer in time`, extra);
  }
  if (isConnection(err)) {
    const cause = (err as { cause?: { message?: string; cause?: { message?: string } } }).cause;
    const detail = cause?.cause?.message ?? cause?.message ?? err.message;
    return new ProviderError('connection', `${provider} upstream unreachable: ${detail}`, extra);
  }
  if (isApiError(err) && err.status) {
    const retryAfter = retryAfterSeconds(err.headers);
    const upstreamText = upstreamMessage(err);
    return new ProviderError(
      kindForStatus(err.status),
      `${provider} upstream answered ${err.status}: ${upstreamText}`,
      { ...extra, upstreamText, status: err.status, ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}) },
    );
  }
  if (isApiError(err)) {
    // An error event inside a 200 stream.
    const upstreamText = upstreamMessage(err);
    return new ProviderError('upstream', `${provider} upstream error: ${upstreamText}`, { ...extra, upstreamText });
  }
  if (err instanceof SyntaxError) {
    // JSON.parse quotes the text it choked on: the upstream's data, possibly the reply.
    return new ProviderError('upstream', `${provider} upstream sent malformed data: ${err.message}`, { ...extra, upstreamText: err.message });
  }
  // Mid-stream socket failures surface as plain errors (undici: "terminated").
  const message = err instanceof Error ? err.message : String(err);
  return new ProviderError('connection', `${provider} upstream connection failed: ${message}`, extra);
}

/**
 * One SDK client per (base URL, key): a client carries its auth and options, while connections
 * are pooled per origin by the keep-alive agents of node-http-fetch.ts. Bounded, oldest evicted first.
 */
export class ClientCache<T> {
  private readonly clients = new Map<string, T>();

  constructor(private readonly maxSize = 64) {}

  get(baseUrl: string, apiKey: string | undefined, create: () => T): T {
    const key = `${baseUrl}\u0000${apiKey ?? ''}`;
    let client = this.clients.get(key);
    if (!client) {
      if (this.clients.size >= this.maxSize) this.clients.delete(this.clients.keys().next().value!);
      client = create();
      this.clients.set(key, client);
    }
    return client;
  }
}

/** Per-call options both SDKs take: timeout per attempt, retries, and the caller's abort signal. */
export function sdkRequestOptions(settings: UpstreamAdapterSettings, opts: ProviderCallOptions, signal: AbortSignal | undefined) {
  return {
    timeout: Math.max(1, Math.round(opts.timeoutMs ?? settings.timeoutMs)),
    maxRetries: opts.maxRetries ?? settings.maxRetries,
    ...(signal ? { signal } : {}),
  };
}
