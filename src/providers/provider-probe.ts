/**
 * A provider's connection test (docs/providers.md, "Testing a provider"): one small request that
 * needs the key and spends nothing — the model list (`GET {baseUrl}/models` for the OpenAI format,
 * `GET {baseUrl}/v1/models?limit=1` for Anthropic's) — through the same client and outbound policy
 * as a call, without retries. Every outcome is a result, never a throw: what failed is said in a
 * sentence, the key never in it.
 */
import { ANTHROPIC_API_VERSION, ANTHROPIC_DEFAULT_BASE_URL } from './anthropic.provider';
import { OPENAI_DEFAULT_BASE_URL } from './openai.provider';
import { ProviderCredentials, ProviderError } from './provider.types';
import { toProviderError } from './upstream-errors';
import { discard, UpstreamCall, UpstreamHttp } from './upstream-http';

export interface ProbeResult {
  ok: boolean;
  /** The upstream's HTTP status; null when none came (refused, unreachable, timed out) or nothing was called. */
  status: number | null;
  latencyMs: number;
  message: string;
}

/** A model list larger than this is not parsed (OpenRouter's is megabytes): the answer is enough. */
const LIST_LIMIT = 2 * 1024 * 1024;

export async function probeProvider(http: UpstreamHttp, creds: ProviderCredentials, timeoutMs: number): Promise<ProbeResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (creds.type === 'local') return { ok: true, status: null, latencyMs: 0, message: 'The built-in local provider calls nothing.' };
  let call: UpstreamCall;
  let host: string;
  try {
    call = callOf(http, creds);
    host = new URL(call.target.origin).host;
  } catch (err) {
    return { ok: false, status: null, latencyMs: 0, message: redact((err as Error).message, creds.apiKey) };
  }
  try {
    // The whole test, body included, ends a second after the answer's own timeout: a trickling body cannot hold it.
    const res = await http.open(call, { maxRetries: 0, timeoutMs, signal: AbortSignal.timeout(timeoutMs + 1000) });
    const { text, complete } = await readUpTo(res.body, LIST_LIMIT);
    const latencyMs = elapsed();
    const type = String(res.headers['content-type'] ?? '');
    const models = complete ? modelCount(text) : undefined;
    if (models === undefined && !(type.includes('json') && !complete)) {
      return {
        ok: false,
        status: res.statusCode,
        latencyMs,
        message: `${host} answered ${res.statusCode} with something that is not a model list: check the base URL${creds.type === 'openai' ? ' (up to and including /v1)' : ''}.`,
      };
    }
    const listed = models === undefined ? 'a model list' : `${models} model${models === 1 ? '' : 's'} listed`;
    return { ok: true, status: res.statusCode, latencyMs, message: `Connected to ${host}: ${listed}.` };
  } catch (err) {
    return { ok: false, ...failureOf(err, host, creds, timeoutMs), latencyMs: elapsed() };
  }
}

function callOf(http: UpstreamHttp, creds: ProviderCredentials): UpstreamCall {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'parley' };
  if (creds.type === 'anthropic') {
    headers['anthropic-version'] = ANTHROPIC_API_VERSION;
    if (creds.apiKey) headers['x-api-key'] = creds.apiKey;
    return {
      provider: 'anthropic',
      method: 'GET',
      target: http.target('anthropic', creds.baseUrl || ANTHROPIC_DEFAULT_BASE_URL, '/v1/models?limit=1'),
      headers,
    };
  }
  if (creds.apiKey) headers.authorization = `Bearer ${creds.apiKey}`;
  return { provider: 'openai', method: 'GET', target: http.target('openai', creds.baseUrl || OPENAI_DEFAULT_BASE_URL, '/models'), headers };
}

/** What went wrong, in a sentence for the person who set the provider up. */
function failureOf(failure: unknown, host: string, creds: ProviderCredentials, timeoutMs: number): Omit<ProbeResult, 'ok' | 'latencyMs'> {
  // A failure while reading the list (the body stalled or was cut) is named as a call's would be.
  const err = failure instanceof ProviderError ? failure : toProviderError(failure, creds.type, undefined, timeoutMs, true);
  const status = err.status ?? null;
  const said = redact(err.upstreamText ?? '', creds.apiKey);
  if (status !== null) {
    if (status >= 300 && status < 400)
      return { status, message: `${host} answered ${status}, a redirect, which Parley does not follow: check the base URL.` };
    if (status === 401 || status === 403) {
      const why = creds.apiKey ? 'refused the key' : 'asks for a key, and this provider has none';
      return { status, message: `${host} ${why} (${status}): ${said}` };
    }
    if (status === 404)
      return {
        status,
        message: `${host} answered 404 (${said}): check the base URL${creds.type === 'openai' ? ' (up to and including /v1)' : ''}.`,
      };
    if (status === 429) return { status, message: `${host} is rate limiting this key (429): ${said}` };
    return { status, message: `${host} answered ${status}: ${said}` };
  }
  if (err.kind === 'timeout') return { status: null, message: `${host} did not answer within ${Math.round(timeoutMs / 100) / 10} s.` };
  // "openai upstream unreachable: connection refused", "… refused: the host is not allowed by …": the reason, without the adapter's prefix.
  const reason = err.message.replace(/^\w+ upstream (unreachable|refused|connection failed|sent malformed data): /, '');
  return { status: null, message: `Could not reach ${host || 'the provider'}: ${redact(reason, creds.apiKey)}` };
}

/** The key, should an upstream (or a fake) quote it back, never leaves in a message. */
function redact(text: string, apiKey: string | undefined): string {
  return apiKey && apiKey.length >= 4 ? text.split(apiKey).join('[redacted]') : text;
}

/** OpenAI's `{data: [...]}` (Anthropic's too): the number of models, or undefined for anything else. */
function modelCount(text: string): number | undefined {
  try {
    const body = JSON.parse(text) as { data?: unknown } | null;
    return Array.isArray(body?.data) ? body.data.length : undefined;
  } catch {
    return undefined;
  }
}

async function readUpTo(
  body: AsyncIterable<unknown> & { destroyed: boolean },
  limit: number,
): Promise<{ text: string; complete: boolean }> {
  const parts: Buffer[] = [];
  let size = 0;
  let complete = true;
  try {
    for await (const part of body) {
      parts.push(part as Buffer);
      size += (part as Buffer).length;
      if (size > limit) {
        complete = false;
        break;
      }
    }
  } finally {
    discard(body as Parameters<typeof discard>[0]);
  }
  return { text: Buffer.concat(parts).toString('utf8'), complete };
}
