import { ProviderError } from '../providers';
import type { FallbackReason } from '../registry/content/routing.schema';

/** A stream that sent no content event within the block's firstTokenTimeoutMs. */
export class FirstTokenTimeout extends ProviderError {
  constructor(provider: ProviderError['provider'], timeoutMs: number) {
    super('timeout', `${provider ?? 'provider'} upstream sent no content within ${timeoutMs} ms (firstTokenTimeoutMs)`, {
      ...(provider ? { provider } : {}),
    });
  }
}

/**
 * Why a failed attempt may move a call on to the next target (docs/routing.md, "What falls
 * back"), or null when it may not: the caller's own request error (a 4xx, an unknown model), a
 * cancellation, or a failure of Parley itself. A first-token timeout is told by the stream runner
 * (FirstTokenTimeout), the rest by the provider error's kind and upstream status.
 */
export function fallbackReasonOf(err: unknown): FallbackReason | null {
  if (err instanceof FirstTokenTimeout) return 'first_token_timeout';
  if (!(err instanceof ProviderError)) return null;
  switch (err.kind) {
    case 'rate_limited':
      return 'rate_limit';
    case 'timeout':
      return 'timeout';
    case 'connection':
      return 'connection';
    case 'upstream':
      // 401/403: the target's key is refused; falling over would hide it, and the same caller
      // request would fail the same way on every call (docs/routing.md).
      if (err.status !== undefined && err.status >= 400 && err.status < 500) return null;
      // 5xx, Anthropic's 529 overloaded, an error event or malformed data in a stream.
      return 'server_error';
    default:
      // bad_request (the caller's 4xx) and aborted (the caller went away) never fall back.
      return null;
  }
}

/** Whether `err` falls back under the routing block's `fallbackOn`. */
export function mayFallBack(err: unknown, fallbackOn: readonly FallbackReason[]): boolean {
  const reason = fallbackReasonOf(err);
  return reason !== null && fallbackOn.includes(reason);
}
