import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as zlib from 'node:zlib';
import { nodeHttpFetch } from './node-http-fetch';

/** A tiny server whose answer each test decides. */
async function serve(handler: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('nodeHttpFetch', () => {
  it('sends method, headers and body, and answers a JSON response read whole', async () => {
    let seen: { method?: string; auth?: string; body?: string; connection?: string } = {};
    const server = await serve((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen = { method: req.method, auth: req.headers.authorization, body, connection: req.headers.connection };
        res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'r1' });
        res.end('{"ok":true}');
      });
    });
    try {
      const res = await nodeHttpFetch(`${server.url}/v1/x`, { method: 'post', headers: new Headers({ Authorization: 'Bearer k' }), body: '{"a":1}' });
      expect(seen).toEqual({ method: 'POST', auth: 'Bearer k', body: '{"a":1}', connection: 'keep-alive' });
      expect([res.ok, res.status, res.headers.get('x-request-id'), res.url]).toEqual([true, 201, 'r1', `${server.url}/v1/x`]);
      expect(await res.json()).toEqual({ ok: true });
      expect(res.bodyUsed).toBe(true);
      await expect(res.text()).rejects.toThrow(TypeError);
    } finally {
      await server.close();
    }
  });

  it('streams anything that is not JSON: the body is an async iterable read as it comes', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      setTimeout(() => res.end('data: [DONE]\n\n'), 20);
    });
    try {
      const res = await nodeHttpFetch(server.url, { method: 'POST', body: '{}' });
      const parts: string[] = [];
      for await (const part of res.body as unknown as AsyncIterable<Buffer>) parts.push(part.toString());
      expect(parts.join('')).toBe('data: 1\n\ndata: [DONE]\n\n');
    } finally {
      await server.close();
    }
  });

  it('decodes a compressed answer', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(zlib.gzipSync('{"z":"unzipped"}'));
    });
    try {
      expect(await (await nodeHttpFetch(server.url)).json()).toEqual({ z: 'unzipped' });
    } finally {
      await server.close();
    }
  });

  it('leaves redirects to the global fetch', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/old') {
        res.writeHead(308, { location: '/new' });
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ at: req.url, method: req.method }));
    });
    try {
      expect(await (await nodeHttpFetch(`${server.url}/old`, { method: 'POST', body: '{}' })).json()).toEqual({ at: '/new', method: 'POST' });
    } finally {
      await server.close();
    }
  });

  it('rejects with TypeError("fetch failed") and the cause when nothing listens', async () => {
    const server = await serve(() => undefined);
    const url = server.url;
    await server.close();
    const err = (await nodeHttpFetch(url).catch((e: unknown) => e)) as TypeError & { cause?: { code?: string } };
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toBe('fetch failed');
    expect(err.cause?.code).toBe('ECONNREFUSED');
  });

  it('aborts with an AbortError while waiting for the answer, and while a stream is read', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/hang') return;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
    });
    try {
      const waiting = new AbortController();
      const pending = nodeHttpFetch(`${server.url}/hang`, { signal: waiting.signal });
      setTimeout(() => waiting.abort(), 20);
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });

      const reading = new AbortController();
      const res = await nodeHttpFetch(`${server.url}/stream`, { signal: reading.signal });
      const read = (async () => {
        for await (const _part of res.body as unknown as AsyncIterable<Buffer>) reading.abort();
      })();
      await expect(read).rejects.toMatchObject({ name: 'AbortError' });
    } finally {
      await server.close();
    }
  });
});
