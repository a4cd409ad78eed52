import type { IncomingMessage, ServerResponse } from 'node:http';

import { newId } from '../common/ids';

/** An incoming X-Request-Id worth keeping: short, and only characters safe in a header and a log line. */
const SANE = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The request's id: the load balancer's X-Request-Id when sane, otherwise a new UUIDv7. */
export function requestIdOf(req: IncomingMessage): string {
  const existing = (req as { id?: unknown }).id;
  if (typeof existing === 'string') return existing;
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && SANE.test(given) ? given : newId();
}

/**
 * First middleware of the app: fixes the request id and echoes it as X-Request-Id on every
 * response (errors of the body parser included), so a client can quote it and an operator find
 * the log line (the request line of src/logging/request-logging.ts and unexpected-error lines carry it).
 */
export function echoRequestId(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  const id = requestIdOf(req);
  (req as { id?: string }).id = id;
  // Written back, so whatever reads the request's headers (the request log of an invoke) sees the id that was echoed.
  req.headers['x-request-id'] = id;
  res.setHeader('X-Request-Id', id);
  next();
}
