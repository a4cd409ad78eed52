import { Injectable } from '@nestjs/common';
import { Principal } from './principal';

/** The console's session cookie (docs/console.md, "Sessions"): an opaque token, stored hashed. */
export const SESSION_COOKIE = 'parley_session';
/**
 * A state-changing request authenticated by the cookie must carry this header. A cross-site form
 * or image cannot set a custom header, and a cross-site fetch that sets one needs a CORS preflight
 * Parley never grants, so the header proves the request came from the console's own pages.
 */
export const CSRF_HEADER = 'x-parley-csrf';

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

export type SessionResolverFn = (token: string) => Promise<Principal | null>;

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

  resolve(token: string): Promise<Principal | null> {
    return this.resolver ? this.resolver(token) : Promise.resolve(null);
  }
}
