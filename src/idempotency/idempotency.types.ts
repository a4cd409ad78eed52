import type { ChatCompletion } from '../providers';

/** What a finished request left to replay (docs/security.md, "Idempotency keys"). */
export type StoredOutcome =
  /**
   * An invoke that succeeded: replayed through the same transport, as JSON or as a stream.
   * `objectId`: the id of the object the surface answered with (a Response's), answered again.
   */
  | { kind: 'invocation'; threadId: string | null; completion: ChatCompletion; objectId?: string }
  /** Any other creating POST's answer, as it was sent. */
  | { kind: 'response'; status: number; body: unknown }
  /** A refusal that a retry would get again (4xx), with its headers. */
  | { kind: 'error'; status: number; body: Record<string, unknown>; headers: Record<string, string> }
  /**
   * An answer holding a secret shown once (a created key), encrypted with PARLEY_SECRET_KEY and
   * bound to its idempotency key: the plaintext is never stored (docs/security.md).
   */
  | { kind: 'sealed'; sealed: string }
  /** Such an answer where no PARLEY_SECRET_KEY is set to seal it: not kept, a replay says so. */
  | { kind: 'withheld'; status: number };

export type Claim = { type: 'new' } | { type: 'replay'; outcome: StoredOutcome };

/** How long a key replays its outcome. */
export const IDEMPOTENCY_TTL_HOURS = 24;

/** The admin API's creating POSTs belong to no project: their keys share this scope. */
export const ADMIN_SCOPE = '00000000-0000-0000-0000-000000000000';

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export function isValidIdempotencyKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** What every surface says about a key it cannot run, each in its own error body (docs/security.md, "Idempotency keys"). */
export const IDEMPOTENCY_MESSAGES = {
  inFlight: 'A request with this Idempotency-Key is still being processed',
  mismatch: 'This Idempotency-Key was already used with a different request',
} as const;
