import type { CookieOptions } from 'express';

import type { FlowChecks } from './oidc-client';

/**
 * The sign-in in progress, kept in the browser that started it (docs/security.md, "Sign-in"): the
 * state, the nonce, the PKCE verifier and where to go afterwards, in a cookie that is
 * - HttpOnly: no script reads the verifier;
 * - SameSite=Lax: the provider's redirect back is a top-level GET from another site, which a
 *   Lax cookie goes along with and a Strict one would not;
 * - limited to the callback's path and to FLOW_TTL_S, and cleared by the callback whatever its outcome.
 * It binds the callback to the browser: a callback URL opened in another browser (login CSRF, a
 * code stolen on its way) has no cookie, or one with another state. Kept in the browser rather
 * than the database, any replica can finish a sign-in another one started, with no table to clean;
 * a code used twice is refused by the provider, which lets each code be exchanged once.
 */
export const FLOW_COOKIE = 'parley_oidc';
export const FLOW_COOKIE_PATH = '/v2/console/oidc';
export const FLOW_TTL_S = 600;
/** The console's own start page: where a sign-in without a (valid) `returnTo` lands. */
export const CONSOLE_HOME = '/console';

export interface SignInFlow extends FlowChecks {
  /** A path of the console to land on. */
  returnTo: string;
  /** When it started, in epoch milliseconds. */
  startedAt: number;
}

export function flowCookieOptions(secure: boolean): CookieOptions {
  return { httpOnly: true, sameSite: 'lax', secure, path: FLOW_COOKIE_PATH, maxAge: FLOW_TTL_S * 1000 };
}

export function encodeFlow(flow: SignInFlow): string {
  return Buffer.from(JSON.stringify(flow)).toString('base64url');
}

const isText = (value: unknown, max: number): value is string => typeof value === 'string' && value.length > 0 && value.length <= max;

/** The flow in a Cookie header; null when there is none, it is malformed, or it is older than FLOW_TTL_S. */
export function flowOf(cookieHeader: string | string[] | undefined, now = Date.now()): SignInFlow | null {
  if (typeof cookieHeader !== 'string') return null;
  const part = cookieHeader
    .split(';')
    .map((item) => item.trim())
    .find((item) => item.startsWith(`${FLOW_COOKIE}=`));
  if (!part) return null;
  try {
    const flow = JSON.parse(Buffer.from(part.slice(FLOW_COOKIE.length + 1), 'base64url').toString('utf8')) as Partial<SignInFlow>;
    const ok =
      isText(flow.state, 200) &&
      isText(flow.nonce, 200) &&
      isText(flow.codeVerifier, 200) &&
      typeof flow.startedAt === 'number' &&
      now - flow.startedAt <= FLOW_TTL_S * 1000 &&
      now - flow.startedAt >= -60_000;
    return ok ? { ...(flow as SignInFlow), returnTo: consoleReturnTo(flow.returnTo) } : null;
  } catch {
    return null;
  }
}

/**
 * Where to land after signing in: a path of the console on this server (`/console` or below it),
 * never another origin; anything else is the console's start page.
 */
export function consoleReturnTo(value: unknown): string {
  if (typeof value !== 'string' || value.length > 1000 || !value.startsWith('/console')) return CONSOLE_HOME;
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return CONSOLE_HOME;
  try {
    const base = 'http://parley.invalid';
    const url = new URL(value, base);
    if (url.origin !== base || !(url.pathname === '/console' || url.pathname.startsWith('/console/'))) return CONSOLE_HOME;
    return `${url.pathname}${url.search}`;
  } catch {
    return CONSOLE_HOME;
  }
}
