/**
 * The `fetch` the provider SDKs are given (see `cappedRetryAfterFetch`): one request over
 * node:http(s) with keep-alive agents, answered with a small Response-like object.
 *
 * Why not the global fetch (undici): on the invoke path it was the largest single cost of a call.
 * Its WHATWG machinery (Request/Response objects, web streams, abort-signal plumbing) cost Parley
 * about a third of its CPU per call against a fast upstream (docs/performance.md). node:http
 * does the same HTTP/1.1 keep-alive work, and the SDKs only use the parts of a Response that this
 * object has: `ok`, `status`, `statusText`, `url`, `headers` (a real `Headers`), `body` (async
 * iterable, which their SSE readers iterate directly), `text()`, `json()`, `arrayBuffer()`.
 *
 * Behaviour kept from fetch: the caller's `signal` aborts the request or the body being read
 * with an `AbortError`; connection failures reject with `TypeError('fetch failed', {cause})`;
 * connections are pooled per origin and reused; anything unusual (a `Request` object, a stream
 * or form body, a non-http(s) URL, a redirect to follow) is handed to the global fetch.
 * Differences: no `Accept-Encoding` is sent (compressed answers are still decoded), and a JSON
 * answer is read whole before the promise resolves, so the SDK's timeout covers the body too.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { pipeline, Readable } from 'node:stream';
import * as zlib from 'node:zlib';

/** Idle keep-alive connections are closed after 4 s, as undici does by default. */
const AGENT_OPTIONS = { keepAlive: true, timeout: 4_000 };
const agents = { 'http:': new http.Agent(AGENT_OPTIONS), 'https:': new https.Agent(AGENT_OPTIONS) };

function abortError(): Error {
  const err = new Error('This operation was aborted');
  err.name = 'AbortError';
  return err;
}

function requestHeaders(headers: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  if (Array.isArray(headers)) for (const [name, value] of headers) out[name] = value;
  // Duck-typed: a Headers object may come from another realm (a test runner's vm context).
  else if (typeof (headers as Headers).forEach === 'function') (headers as Headers).forEach((value, name) => (out[name] = value));
  else Object.assign(out, headers);
  return out;
}

/** The body as sent, decompressed when the upstream compressed it anyway; errors carry through. */
function decoded(res: http.IncomingMessage): Readable {
  const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : encoding === 'br'
          ? zlib.createBrotliDecompress()
          : null;
  return decoder ? pipeline(res, decoder, () => undefined) : res;
}

async function readAll(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part);
  return Buffer.concat(parts);
}

/** The parts of a fetch Response the SDKs read. */
class NodeResponse {
  readonly ok: boolean;
  readonly redirected = false;
  readonly type = 'basic';
  private used = false;

  constructor(
    readonly url: string,
    readonly status: number,
    readonly statusText: string,
    readonly headers: Headers,
    /** The body still to be read (streams), or null when it was read already (`buffered`). */
    readonly body: (Readable & AsyncIterable<Buffer>) | null,
    private readonly buffered: Buffer | null,
  ) {
    this.ok = status >= 200 && status < 300;
  }

  get bodyUsed(): boolean {
    return this.used;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return (await this.bytes()).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  private async bytes(): Promise<Buffer> {
    if (this.used) throw new TypeError('Body is unusable: Body has already been read');
    this.used = true;
    return this.buffered ?? (this.body ? readAll(this.body) : Buffer.alloc(0));
  }
}

const isJson = (contentType: string | undefined) => /[/+]json\b/i.test(contentType ?? '');

export function nodeHttpFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = typeof input === 'string' ? new URL(input) : input instanceof URL ? input : null;
  const simpleBody = init.body === undefined || init.body === null || typeof init.body === 'string' || init.body instanceof Uint8Array;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !simpleBody) return fetch(input, init);

  return new Promise<Response>((resolve, reject) => {
    const signal = init.signal ?? undefined;
    if (signal?.aborted) return reject(abortError());
    let body: Readable | undefined;
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      reject(err.name === 'AbortError' ? err : new TypeError('fetch failed', { cause: err }));
    };
    const onAbort = () => {
      const err = abortError();
      // A body being read fails with the AbortError, as fetch's does (the SDKs end a stream quietly on it).
      body?.destroy(err);
      req.destroy(err);
      fail(err);
    };

    let req: http.ClientRequest;
    try {
      req = (url.protocol === 'https:' ? https : http).request(url, {
        method: (init.method ?? 'GET').toUpperCase(),
        headers: requestHeaders(init.headers),
        agent: agents[url.protocol as keyof typeof agents],
      });
    } catch (err) {
      // Invalid header names or values are thrown synchronously by node:http.
      return reject(new TypeError('fetch failed', { cause: err }));
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', fail);
    req.on('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && response.headers.location && init.redirect !== 'manual') {
        // Following redirects is fetch's business: ask it, from the start.
        response.resume();
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        return resolve(fetch(input, init));
      }
      const headers = new Headers();
      const raw = response.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
      const stream = decoded(response) as Readable & AsyncIterable<Buffer>;
      body = stream;
      const answer = (buffered: Buffer | null) =>
        new NodeResponse(url.href, status, response.statusMessage ?? '', headers, buffered ? null : stream, buffered) as unknown as Response;

      if (!isJson(response.headers['content-type'])) {
        // Streams (SSE) and anything else: resolve at the headers; the body is read as it comes.
        settled = true;
        stream.once('close', () => signal?.removeEventListener('abort', onAbort));
        return resolve(answer(null));
      }
      readAll(stream).then((bytes) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        resolve(answer(bytes));
      }, fail);
    });
    req.end((init.body ?? undefined) as string | Uint8Array | undefined);
  });
}
