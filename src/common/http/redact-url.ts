/**
 * Query parameters named like a credential (`api_key`, `key`, `token`, `access_token`,
 * `authorization`, `secret`, `password`, `signature`, ...), whatever their value.
 */
const CREDENTIAL_NAME =
  /(^|[^a-z])(key|token|secret|password|passwd|auth|authorization|signature|sig|credential|session)s?($|[^a-z])|api.?key|access.?token|client.?secret/i;

/** OpenID Connect's callback parameters (docs/security.md, "Sign-in"): the authorization code and the flow's state and nonce. */
const OAUTH_NAME = /^(code|state|nonce|code_verifier)$/i;

/** A Parley key (`pk_` project, `ak_` admin) or SCIM token (`pscim_`) anywhere in a value, under any parameter name. */
const KEY_SHAPED = /(pk|ak|pscim)_[A-Za-z0-9_-]{16,}/;

export const REDACTED = '[REDACTED]';

/**
 * The URL as it may be written down (the request line of the server log, a request log's `url`):
 * Parley takes keys only in headers, but a client that sends one in the query string
 * (`?api_key=pk_...`) must not have it kept anywhere (docs/security.md "Keys in URLs"). The path
 * and every other parameter stay as sent.
 */
export function redactUrl(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return url;
  const pairs = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals === -1 ? pair : pair.slice(0, equals);
      const value = equals === -1 ? '' : pair.slice(equals + 1);
      if (
        CREDENTIAL_NAME.test(decoded(name)) ||
        OAUTH_NAME.test(decoded(name)) ||
        KEY_SHAPED.test(decoded(value)) ||
        KEY_SHAPED.test(decoded(name))
      ) {
        return `${KEY_SHAPED.test(decoded(name)) ? REDACTED : name}=${REDACTED}`;
      }
      return pair;
    });
  return `${url.slice(0, start)}?${pairs.join('&')}`;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** What a provider's base URL may not be, or undefined: an http(s) URL with a host and no credentials in it. */
export function baseUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an http(s) URL';
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname || /\s/.test(text)) return 'must be an http(s) URL';
  // Shown to every key that reads providers and kept in the audit trail: a key never belongs in it (docs/security.md).
  if (url.username || url.password) return 'must not carry credentials (user:password@): give the key as apiKey or apiKeyEnv';
  if (redactUrl(text) !== text) return 'must not carry a key in its query string: give the key as apiKey or apiKeyEnv';
  return undefined;
}

/** A base URL as it may be shown: credentials stored before they were refused are redacted. */
export function redactBaseUrl(text: string): string {
  try {
    const url = new URL(text);
    if (!url.username && !url.password) return redactUrl(text);
    return redactUrl(`${url.protocol}//${REDACTED}@${url.host}${url.pathname}${url.search}${url.hash}`);
  } catch {
    return redactUrl(text);
  }
}
