/**
 * Why a sign-in with OpenID Connect was refused: the `signInError` the console is sent to show
 * (docs/security.md, "Sign-in"), coarse on purpose; the instance's audit trail keeps the detail.
 */
export const SIGN_IN_ERRORS = [
  'sso_not_configured',
  'provider_unavailable',
  'provider_denied',
  'invalid_callback',
  'sign_in_expired',
  'state_mismatch',
  'token_rejected',
  'email_missing',
  'email_unverified',
  'domain_not_allowed',
  'account_conflict',
  'user_inactive',
  'no_role',
  'throttled',
  'server_error',
] as const;
export type SignInError = (typeof SIGN_IN_ERRORS)[number];

export class SignInRefusal extends Error {
  constructor(
    readonly code: SignInError,
    /** For the audit trail: what the provider or the checks said; never a token or a code. */
    readonly detail: string | null = null,
    /** False when the failure was not the client's (the provider or the database unreachable): not counted by the throttle. */
    readonly clientsFault = true,
  ) {
    super(detail ? `${code}: ${detail}` : code);
  }
}

/** Printable ASCII, at most `max` characters: a provider's error code or a library's message, as the audit trail keeps it. */
export function auditText(value: unknown, max = 200): string | null {
  if (typeof value !== 'string') return null;
  const text = value.replace(/[^\x20-\x7e]/g, '').slice(0, max);
  return text === '' ? null : text;
}

/** Codes of openid-client (oauth4webapi) errors that mean the provider could not be reached or answered nonsense. */
const UNREACHABLE = new Set(['OAUTH_TIMEOUT', 'OAUTH_ABORT', 'OAUTH_RESPONSE_IS_NOT_CONFORM', 'OAUTH_RESPONSE_IS_NOT_JSON']);

/**
 * An error of the code exchange as a refusal: the token endpoint refusing the code (used already,
 * expired, another client's) or a check of the ID token failing (issuer, audience, expiry, nonce,
 * signature) is `token_rejected`; an unreachable provider is not the client's fault.
 */
export function refusalOfExchange(err: unknown): SignInRefusal {
  const e = err as { name?: unknown; code?: unknown; error?: unknown; status?: unknown; message?: unknown; cause?: unknown } | null;
  if (e?.name === 'ResponseBodyError') {
    const status = typeof e.status === 'number' ? e.status : 0;
    if (status >= 500) return new SignInRefusal('provider_unavailable', `token endpoint answered ${status}`, false);
    return new SignInRefusal('token_rejected', `token endpoint: ${auditText(e.error) ?? 'error'}`);
  }
  if (e?.name === 'AuthorizationResponseError') return new SignInRefusal('provider_denied', auditText(e.error));
  const code = typeof e?.code === 'string' ? e.code : null;
  if ((code !== null && UNREACHABLE.has(code)) || (e instanceof TypeError && e.message === 'fetch failed')) {
    return new SignInRefusal('provider_unavailable', code ?? 'fetch failed', false);
  }
  if (e?.name === 'ClientError' || e?.name === 'OperationProcessingError') {
    // The cause's message names the check ('unexpected JWT "aud" (audience) claim value'); its other fields hold the token's claims.
    const cause = (e.cause as { message?: unknown } | undefined)?.message;
    return new SignInRefusal('token_rejected', [code, auditText(cause) ?? auditText(e.message)].filter(Boolean).join(': '));
  }
  return new SignInRefusal('server_error', null, false);
}
