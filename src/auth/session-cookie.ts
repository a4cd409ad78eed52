import { Injectable } from '@nestjs/common';

import { Principal } from './principal';
import type { UserAccess } from './roles';

/** The console's session cookie (docs/console.md, "Sessions"): an opaque token, stored hashed. */
export const SESSION_COOKIE = 'parley_session';
/**
 * A state-changing request authenticated by the cookie must carry this header. A cross-site form
 * or image cannot set a custom header, and a cross-site fetch that sets one needs a CORS preflight
 * Parley never grants, so the header proves the request came from the console's own pages.
 */
export const CSRF_HEADER = 'x-parley-csrf';

/**
 * Why a sign-in or sign-out is another site's request, or null (docs/security.md, "Console
 * sign-in"): an `Origin` whose host:port is not the request's own (`host`: Host, or a trusted
 * proxy's X-Forwarded-Host), an opaque `Origin: null`, or `Sec-Fetch-Site: cross-site`. A request
 * without either header (curl, scripts) is not a browser's cross-site one and passes.
 */
export function crossSiteRefusal(headers: Record<string, string | string[] | undefined>, host: string | undefined): string | null {
  if (headers['sec-fetch-site'] === 'cross-site') return 'This request came from another site (Sec-Fetch-Site: cross-site)';
  const origin = headers['origin'];
  if (origin === undefined) return null;
  const own = typeof origin === 'string' && host ? sameHost(origin, host) : false;
  return own ? null : 'This request came from another site (its Origin is not this server)';
}

/** The Origin's host:port against the request's, the default port of the Origin's scheme left out of both. */
function sameHost(origin: string, host: string): boolean {
  try {
    const from = new URL(origin);
    if (from.protocol !== 'http:' && from.protocol !== 'https:') return false;
    return from.host === new URL(`${from.protocol}//${host}`).host;
  } catch {
    return false;
  }
}

/** True for `Content-Type: application/json` (parameters such as charset allowed), the one type sign-in takes. */
export function isJsonContentType(headers: Record<string, string | string[] | undefined>): boolean {
  const type = headers['content-type'];
  return typeof type === 'string' && type.split(';')[0].trim().toLowerCase() === 'application/json';
}

/** The session token in a Cookie header, or null. */
export function sessionTokenOf(headers: Record<string, string | string[] | undefined>): string | null {
  const cookie = headers['cookie'];
  if (typeof cookie !== 'string') return null;
  for (const part of cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return value === '' ? null : value;
  }
  return null;
}

/** What a live session stands for: a key's principal, or a person whose access the guard maps per route. */
export type SessionIdentity = { principal: Principal; access?: undefined } | { access: UserAccess; principal?: undefined };

export type SessionResolverFn = (token: string) => Promise<SessionIdentity | null>;

/**
 * Where the global guard finds console sessions. The console module (a higher layer) registers its
 * resolver here at start; without it a session cookie authenticates nothing.
 */
@Injectable()
export class SessionPrincipals {
  private resolver: SessionResolverFn | null = null;

  register(resolver: SessionResolverFn): void {
    this.resolver = resolver;
  }

  resolve(token: string): Promise<SessionIdentity | null> {
    return this.resolver ? this.resolver(token) : Promise.resolve(null);
  }
}
