/**
 * What the server's `?signInError=<code>` means to the person who tried to sign in (docs/security.md,
 * "Sign-in"): the server keeps the detail in the instance's audit trail.
 */
const MESSAGES: Record<string, string> = {
  sso_not_configured: 'Single sign-on is not configured on this server.',
  provider_unavailable: 'The identity provider could not be reached. Try again in a moment.',
  provider_denied: 'The identity provider did not sign you in.',
  invalid_callback: 'The identity provider sent you back without a sign-in. Try again.',
  sign_in_expired: 'That sign-in could not be finished: it took longer than 10 minutes, or was started in another browser. Try again.',
  state_mismatch: 'That sign-in does not match the one this browser started (another tab may have started a newer one). Try again.',
  token_rejected: "The identity provider's answer did not pass Parley's checks. Try again, or ask your administrator.",
  email_missing: 'The identity provider did not send an e-mail address for you.',
  email_unverified: 'Your e-mail address is not verified at the identity provider.',
  domain_not_allowed: 'Your e-mail address is not in a domain allowed to sign in here.',
  account_conflict: 'Another account here already has your e-mail address. Ask your administrator.',
  user_inactive: 'Your account here is deactivated. Ask your administrator.',
  no_role: 'You signed in, but you have no role in any workspace or project here yet. Ask an administrator to add you.',
  throttled: 'Too many failed sign-ins from your address. Wait a minute and try again.',
  server_error: 'Signing in failed on the server. Try again.',
};

export function signInErrorMessage(code: string): string {
  return MESSAGES[code] ?? 'Signing in failed. Try again.';
}
