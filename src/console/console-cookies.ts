import type { CookieOptions, Request } from 'express';

import { clientAddressOf } from '../common/http/wire-request';
import { SESSION_TTL_MS } from './console-sessions.service';

/**
 * The session cookie's attributes, for every way of signing in (a key, OpenID Connect): HttpOnly
 * (no script reads it), SameSite=Strict (no other site sends it), Secure when the request came
 * over https (or `secure`: PUBLIC_URL is https, for a proxy that does not say so).
 */
export function sessionCookieOptions(req: Request, secure = false): CookieOptions {
  return { httpOnly: true, sameSite: 'strict', secure: req.secure || secure, path: '/' };
}

/** As set at sign-in: with its lifetime. Clearing it takes `sessionCookieOptions` alone. */
export function newSessionCookieOptions(req: Request, secure = false): CookieOptions {
  return { ...sessionCookieOptions(req, secure), maxAge: SESSION_TTL_MS };
}

/** The client's address for the sign-in throttle: `req.ip` (X-Forwarded-For from a trusted proxy) when it is an IP, else the socket's. */
export function clientOf(req: Request): string {
  const ip = clientAddressOf(req.ip) ?? clientAddressOf(req.socket.remoteAddress) ?? 'unknown';
  return /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1] ?? ip;
}
