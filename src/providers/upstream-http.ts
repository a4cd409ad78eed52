/**
 * HTTP to the upstreams on undici: one Agent (a keep-alive Pool per origin) shared by the
 * OpenAI-compatible and Anthropic adapters, with the retry policy both had from their SDKs
 * (docs/decisions.md "Retries"): 408, 409, 429, 5xx and connection failures are retried up to
 * `maxRetries` times before any response byte was read, with exponential backoff (0.5 s doubling,
 * max 8 s, up to 25 % jitter) or the upstream's `retry-after-ms` / `Retry-After`; an upstream
 * asking for more than `maxRetryAfterSeconds` fails at once. Redirects are never followed.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { Agent, Dispatcher } from 'undici';

import { AllowedHost, OutboundPolicy, OutboundPolicyError } from './outbound-policy';
import { ProviderCallOptions, ProviderError, ProviderType } from './provider.types';
import { statusError, toProviderError } from './upstream-errors';

/** Call defaults; ProviderCallOptions override the first two per call. */
export interface UpstreamSettings {
  /** Per attempt: connecting and the wait for response headers; then the longest silence of the body. */
  timeoutMs: number;
  maxRetries: number;
  /** Longer Retry-After waits are not sat out: the call fails at once with the status and the wait. */
  maxRetryAfterSeconds: number;
  /** Hosts the outbound policy lets through although they are private or loopback (outbound-policy.ts). */
  allowedHosts: readonly AllowedHost[];
}

export const DEFAULT_UPSTREAM_SETTINGS: UpstreamSettings = { timeoutMs: 60_000, maxRetries: 2, maxRetryAfterSeconds: 30, allowedHosts: [] };

/** Error bodies are read up to this size (the message keeps 500 characters of it). */
const ERROR_BODY_LIMIT = 64 * 1024;
const USER_AGENT = 'parley';

type Headers = Record<string, string | string[] | undefined>;

/** One upstream call: where, what, and whose. */
export interface UpstreamCall {
  provider: ProviderType;
  target: UpstreamTarget;
  headers: Record<string, string>;
  /** POST unless said (a connection test lists the models: provider-probe.ts). */
  method?: 'GET' | 'POST';
  body?: string;
}

export interface UpstreamTarget {
  origin: string;
  path: string;
}

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Milliseconds an upstream asks us to wait (`retry-after-ms`, then `Retry-After` seconds or date). */
export function retryAfterMs(headers: Headers): number | undefined {
  const ms = Number.parseFloat(header(headers, 'retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = header(headers, 'retry-after');
  if (!value) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function isRetryableStatus(status: number, headers: Headers): boolean {
  const hint = header(headers, 'x-should-retry');
  if (hint === 'true') return true;
  if (hint === 'false') return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function backoffMs(retry: number): number {
  return Math.min(500 * 2 ** retry, 8000) * (1 - Math.random() * 0.25);
}

/** Closes a body not read to its end (undici then closes the connection); quietly. */
export function discard(body: Dispatcher.ResponseData['body']): void {
  if (body.destroyed) return;
  body.on('error', () => undefined);
  body.destroy();
}

async function readLimited(body: Dispatcher.ResponseData['body'], limit: number): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const part of body) {
      parts.push(part as Buffer);
      size += (part as Buffer).length;
      if (size >= limit) break;
    }
  } catch {
    // What arrived is enough for an error message.
  } finally {
    discard(body);
  }
  return Buffer.concat(parts).toString('utf8').slice(0, limit);
}

export class UpstreamHttp {
  readonly settings: UpstreamSettings;
  private readonly agent: Agent;
  private readonly targets = new Map<string, UpstreamTarget>();

  constructor(settings: Partial<UpstreamSettings> = {}, onRefused?: (err: OutboundPolicyError) => void) {
    this.settings = { ...DEFAULT_UPSTREAM_SETTINGS, ...settings };
    const policy = new OutboundPolicy(this.settings.allowedHosts, onRefused);
    this.agent = new Agent({ connect: policy.connector(this.settings.timeoutMs), keepAliveTimeout: 4_000 });
  }

  /** `baseUrl` + `suffix` as undici takes it, parsed once per base URL (bounded cache). */
  target(provider: ProviderType, baseUrl: string, suffix: string): UpstreamTarget {
    const key = `${baseUrl}\u0000${suffix}`;
    let target = this.targets.get(key);
    if (!target) {
      let url: URL;
      try {
        url = new URL(baseUrl.replace(/\/+$/, '') + suffix);
      } catch {
        throw new ProviderError('upstream', `${provider} base URL is not a valid URL`, { provider });
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new ProviderError('upstream', `${provider} base URL must be http or https`, { provider });
      }
      target = { origin: url.origin, path: url.pathname + url.search };
      if (this.targets.size >= 256) this.targets.delete(this.targets.keys().next().value!);
      this.targets.set(key, target);
    }
    return target;
  }

  static headers(apiKey: string | undefined, accept: string, extra: Record<string, string> = {}): Record<string, string> {
    return {
      'content-type': 'application/json',
      accept,
      'user-agent': USER_AGENT,
      ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
      ...extra,
    };
  }

  /** A non-streamed call: the parsed JSON body of a 2xx answer. */
  async json(call: UpstreamCall, opts: ProviderCallOptions): Promise<unknown> {
    const timeoutMs = this.timeoutOf(opts);
    const res = await this.open(call, opts);
    try {
      return await res.body.json();
    } catch (err) {
      throw toProviderError(err, call.provider, opts.signal, timeoutMs, true);
    }
  }

  /** A 2xx response whose body is still to be read (streams); failures are ProviderErrors. */
  async open(call: UpstreamCall, opts: ProviderCallOptions): Promise<Dispatcher.ResponseData> {
    const timeoutMs = this.timeoutOf(opts);
    const maxRetries = opts.maxRetries ?? this.settings.maxRetries;
    for (let attempt = 0; ; attempt += 1) {
      let res: Dispatcher.ResponseData;
      try {
        res = await this.agent.request({
          origin: call.target.origin,
          path: call.target.path,
          method: call.method ?? 'POST',
          headers: call.headers,
          body: call.body,
          signal: opts.signal,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
      } catch (err) {
        const failure = toProviderError(err, call.provider, opts.signal, timeoutMs);
        if (attempt >= maxRetries || failure.kind === 'aborted' || !this.retryableFailure(err)) throw failure;
        await this.pause(backoffMs(attempt), call.provider, opts.signal);
        continue;
      }
      const status = res.statusCode;
      if (status >= 200 && status < 300) return res;
      const waitMs = retryAfterMs(res.headers);
      const waitSeconds = waitMs === undefined ? undefined : Math.ceil(waitMs / 1000);
      const tooLong = waitSeconds !== undefined && waitSeconds > this.settings.maxRetryAfterSeconds;
      if (attempt < maxRetries && !tooLong && status >= 400 && isRetryableStatus(status, res.headers)) {
        await res.body.dump().catch(() => undefined);
        await this.pause(waitMs ?? backoffMs(attempt), call.provider, opts.signal);
        continue;
      }
      const text = status >= 300 && status < 400 ? (discard(res.body), '') : await readLimited(res.body, ERROR_BODY_LIMIT);
      throw statusError(call.provider, status, text, waitSeconds);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  destroy(): Promise<void> {
    return this.agent.destroy();
  }

  private timeoutOf(opts: ProviderCallOptions): number {
    return Math.max(1, Math.round(opts.timeoutMs ?? this.settings.timeoutMs));
  }

  /** Connection failures and timeouts are retried; a refusal by Parley's own policy is not. */
  private retryableFailure(err: unknown): boolean {
    return !(err instanceof ProviderError) && !(err instanceof OutboundPolicyError);
  }

  private async pause(ms: number, provider: ProviderType, signal: AbortSignal | undefined): Promise<void> {
    try {
      await sleep(ms, undefined, signal ? { signal } : undefined);
    } catch {
      throw new ProviderError('aborted', `${provider} request cancelled by the caller`, { provider });
    }
  }
}
