/**
 * The `fetch` the provider SDKs are given (see `cappedRetryAfterFetch`): node-fetch over node:http(s)
 * keep-alive agents instead of the global fetch.
 *
 * Why not the global fetch (undici): on the invoke path its WHATWG machinery (Request/Response
 * objects, web streams, abort-signal plumbing) cost Parley about a third of its CPU per call against
 * a fast upstream (docs/performance.md). node-fetch does the same HTTP/1.1 keep-alive work on
 * node:http, and gives the SDKs what they use of a Response: `ok`, `status`, `headers`, `body`
 * (a Node stream, which their SSE readers iterate), `text()`, `json()`. The caller's `signal`
 * aborts the request or the body being read; connections are pooled per origin and reused.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import nodeFetch, { RequestInit as NodeFetchInit } from 'node-fetch';

/** Idle keep-alive connections are closed after 4 s, as undici does by default. */
const AGENT_OPTIONS = { keepAlive: true, timeout: 4_000 };
const httpAgent = new http.Agent(AGENT_OPTIONS);
const httpsAgent = new https.Agent(AGENT_OPTIONS);

/** Header objects may come from another realm (a test runner's vm context): copied to plain pairs. */
function plainHeaders(headers: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  if (Array.isArray(headers)) for (const [name, value] of headers) out[name] = value;
  else if (typeof (headers as Headers).forEach === 'function') (headers as Headers).forEach((value, name) => (out[name] = value));
  else Object.assign(out, headers);
  return out;
}

export function nodeHttpFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  // A Request object or a streamed body is rare here (the SDKs send JSON strings): the global fetch takes those.
  if (typeof input !== 'string' && !(input instanceof URL)) return fetch(input, init);
  if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') return fetch(input, init);
  const url = String(input);
  const options: NodeFetchInit = {
    method: init.method,
    headers: plainHeaders(init.headers),
    body: init.body ?? undefined,
    signal: (init.signal ?? undefined) as NodeFetchInit['signal'],
    agent: (parsed) => (parsed.protocol === 'http:' ? httpAgent : httpsAgent),
  };
  return (nodeFetch(url, options) as unknown as Promise<Response>).catch((err: unknown) => {
    // As the global fetch reports it (and the SDKs expect): TypeError('fetch failed') with the system error as cause.
    const failure = err as { name?: string; type?: string; code?: string; errno?: string };
    if (failure.name === 'FetchError' && failure.type === 'system') throw new TypeError('fetch failed', { cause: err });
    throw err;
  });
}
