/**
 * How an upstream failure becomes a ProviderError (kinds and statuses: docs/decisions.md
 * "Provider failures"). Connection failures name a coarse reason, never an address or port;
 * the upstream's own text is cut to UPSTREAM_TEXT_LIMIT characters (docs/security.md).
 */
import type { z } from 'zod';

import { OutboundPolicyError } from './outbound-policy';
import { ProviderError, ProviderErrorKind, ProviderType } from './provider.types';

export const UPSTREAM_TEXT_LIMIT = 500;

export function truncated(text: string): string {
  return text.length > UPSTREAM_TEXT_LIMIT ? `${text.slice(0, UPSTREAM_TEXT_LIMIT)}…` : text;
}

/** Why a status is the request's fault (400) rather than the provider setup's (502). */
function kindForStatus(status: number): ProviderErrorKind {
  if (status === 429) return 'rate_limited';
  if (status === 408) return 'timeout';
  // 401/403: the stored provider key is wrong — the operator's problem, not the caller's.
  if (status >= 400 && status < 500 && status !== 401 && status !== 403) return 'bad_request';
  return 'upstream';
}

/** The upstream's own words from an error body: `error.message` (both wire formats), else the text. */
export function upstreamMessage(text: string): string {
  if (!text.trim()) return 'status code (no body)';
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return truncated(text);
  }
  const body = json as { message?: unknown; error?: unknown } | null;
  const inner = body?.error as { message?: unknown } | string | undefined;
  const message = typeof inner === 'string' ? inner : (inner?.message ?? body?.message);
  return truncated(typeof message === 'string' && message ? message : JSON.stringify(json));
}

export function statusError(provider: ProviderType, status: number, bodyText: string, retryAfterSeconds?: number): ProviderError {
  if (status >= 300 && status < 400) {
    return new ProviderError('upstream', `${provider} upstream answered ${status}: a redirect, which Parley does not follow`, {
      provider,
      status,
    });
  }
  const upstreamText = upstreamMessage(bodyText);
  return new ProviderError(kindForStatus(status), `${provider} upstream answered ${status}: ${upstreamText}`, {
    provider,
    status,
    upstreamText,
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
  });
}

/** An error event inside a 200 stream; `payload` is the event's data. */
export function streamErrorEvent(provider: ProviderType, payload: unknown): ProviderError {
  const body = payload as { message?: unknown; error?: { message?: unknown } | string } | undefined;
  const inner = body?.error;
  const message = typeof inner === 'string' ? inner : (inner?.message ?? body?.message);
  const upstreamText = truncated(typeof message === 'string' ? message : JSON.stringify(payload));
  return new ProviderError('upstream', `${provider} upstream error: ${upstreamText}`, { provider, upstreamText });
}

/** A coarse reason for a failed connection: no address, no port. */
function connectionReason(err: { code?: unknown; errors?: Array<{ code?: unknown }> }): string {
  const code = String(err.code ?? err.errors?.[0]?.code ?? '');
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME' || code === 'EAI_FAIL') return 'host not found';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET') return 'connection closed';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'ETIMEDOUT') return 'network unreachable';
  if (code.startsWith('ERR_TLS') || code.includes('CERT') || code.startsWith('ERR_SSL')) return 'TLS handshake failed';
  if (code.startsWith('HPE_')) return 'invalid HTTP response';
  return 'connection failed';
}

/**
 * Any failure of a call as a ProviderError. `afterResponse`: the response had begun (a stream or
 * a body was being read); `timeoutMs`: the idle limit that applied.
 */
export function toProviderError(
  err: unknown,
  provider: ProviderType,
  signal: AbortSignal | undefined,
  timeoutMs: number,
  afterResponse = false,
): ProviderError {
  if (err instanceof ProviderError) return err;
  const extra = { provider, cause: err };
  if (signal?.aborted) return new ProviderError('aborted', `${provider} request cancelled by the caller`, extra);
  if (err instanceof OutboundPolicyError) {
    return new ProviderError('connection', `${provider} upstream refused: ${err.publicMessage}`, extra);
  }
  if (err instanceof SyntaxError) {
    // JSON.parse quotes the text it choked on: the upstream's data, possibly the reply.
    const upstreamText = truncated(err.message);
    return new ProviderError('upstream', `${provider} upstream sent malformed data: ${upstreamText}`, { ...extra, upstreamText });
  }
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'UND_ERR_BODY_TIMEOUT') return new ProviderError('timeout', `${provider} upstream sent nothing for ${timeoutMs} ms`, extra);
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new ProviderError('timeout', `${provider} upstream did not answer in time`, extra);
  }
  const reason = connectionReason((err ?? {}) as { code?: unknown });
  const what = afterResponse ? 'connection failed' : 'unreachable';
  return new ProviderError('connection', `${provider} upstream ${what}: ${reason}`, extra);
}

/**
 * The upstream's answer when it has the shape of its API's (`schema`); otherwise the ProviderError
 * that names what is wrong with it (a body of another API, an error page as JSON), instead of a
 * TypeError deeper in the translation. The answer's text is not quoted: it may hold the reply.
 */
export function answerOfShape<T>(answer: unknown, schema: z.ZodType, provider: ProviderType, api: string): T {
  const parsed = schema.safeParse(answer);
  if (parsed.success) return answer as T;
  const issue = parsed.error.issues[0];
  const where = issue.path.length > 0 ? issue.path.join('.') : 'the body';
  throw new ProviderError('upstream', `${provider} upstream answered something that is not ${api}: ${where}: ${issue.message}`, {
    provider,
  });
}
