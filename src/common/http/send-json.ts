import type { ServerResponse } from 'node:http';

/**
 * Ends a response with a JSON body, as express's `res.json` would (same Content-Type and
 * Content-Length) but without its per-response work that a POST answer does not need: an ETag
 * hashed over the body, freshness checks, Content-Type parsing. Used by the invoke transports
 * (docs/performance.md).
 */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
