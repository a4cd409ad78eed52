/**
 * A scriptable fake upstream HTTP server (node:http on 127.0.0.1, random port) that records what it
 * receives. The wire-format specific fakes (fake-openai-upstream.ts, fake-anthropic-upstream.ts)
 * build on it; use those.
 *
 *   const fake = await startFakeUpstream((req) => defaultBehaviour);
 *   fake.url                     // "http://127.0.0.1:<port>"
 *   fake.setNext(b1, b2)         // answer the next requests with b1, then b2, then the default again
 *   fake.clearNext()             // forget what is still queued
 *   fake.requests[i]             // RecordedRequest: method, path, headers, body (parsed JSON), ...
 *   await fake.requests[i].closed  // resolves when that request's connection/response closed
 *   await fake.waitForRequests(2)
 *   await fake.close()           // also drops hanging and kept-open connections
 *
 * Faults as real providers fail (500, 429, hang, stall, cut, malformed, error events): fault-modes.ts.
 */
import http, { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The JSON body, parsed (the raw text when it is not JSON). */
  body: any;
  rawBody: string;
  /** Date.now() when the request had been read. */
  receivedAt: number;
  /** The client's port: equal on two requests means one kept-alive connection. */
  remotePort: number;
  /** Resolves once the response is finished or its connection closed. */
  closed: Promise<void>;
  /** Set on close: the connection closed before the server ended the response (client went away). */
  closedEarly: boolean;
}

export interface SseEvent {
  event?: string;
  /** An object is sent as JSON. */
  data: string | object;
}

export type Behaviour =
  | { type: 'json'; status?: number; body: unknown; headers?: Record<string, string> }
  | { type: 'text'; status: number; body: string; headers?: Record<string, string> }
  | {
      type: 'sse';
      events: SseEvent[];
      status?: number;
      headers?: Record<string, string>;
      /** Pause before each event. */
      delayMs?: number;
      /** After the events: keep the response open (until the client leaves or close()). */
      keepOpen?: boolean;
      /** After the events: destroy the socket without ending the response (a dropped connection). */
      dropConnection?: boolean;
    }
  /** Read the request and never answer. */
  | { type: 'hang' }
  /**
   * Status and headers at once, then `body` (any bytes, e.g. half a JSON document), then: `end` the
   * response, `hold` it open (until the client leaves or close()), or `drop` the socket.
   */
  | { type: 'raw'; status?: number; headers?: Record<string, string>; body?: string; then: 'end' | 'hold' | 'drop' }
  /** Decided per request (e.g. by its `stream` flag): the behaviour `pick` returns. */
  | { type: 'per-request'; pick: (req: RecordedRequest) => Behaviour };

export interface FakeUpstream {
  url: string;
  requests: RecordedRequest[];
  setNext(...behaviours: Behaviour[]): void;
  /** Drops what setNext queued and no request took (a case that must not leak into the next). */
  clearNext(): void;
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function sseFrame(event: SseEvent): string {
  const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
  return `${event.event ? `event: ${event.event}\n` : ''}data: ${data}\n\n`;
}

/** Destroys the socket without ending the response (a dropped connection), once the written bytes have had a moment to leave. */
async function dropSocket(res: http.ServerResponse): Promise<void> {
  await sleep(20);
  res.socket?.destroy();
}

async function respond(res: http.ServerResponse, rec: RecordedRequest, behaviour: Behaviour): Promise<void> {
  switch (behaviour.type) {
    case 'hang':
      return;
    case 'per-request':
      return respond(res, rec, behaviour.pick(rec));
    case 'raw':
      res.writeHead(behaviour.status ?? 200, { 'content-type': 'application/json', ...behaviour.headers });
      res.flushHeaders();
      if (behaviour.body) res.write(behaviour.body);
      if (behaviour.then === 'end') res.end();
      else if (behaviour.then === 'drop') await dropSocket(res);
      return;
    case 'json':
      res.writeHead(behaviour.status ?? 200, { 'content-type': 'application/json', ...behaviour.headers });
      res.end(JSON.stringify(behaviour.body));
      return;
    case 'text':
      res.writeHead(behaviour.status, { 'content-type': 'text/plain', ...behaviour.headers });
      res.end(behaviour.body);
      return;
    case 'sse': {
      res.writeHead(behaviour.status ?? 200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        ...behaviour.headers,
      });
      res.flushHeaders();
      for (const event of behaviour.events) {
        if (behaviour.delayMs) await sleep(behaviour.delayMs);
        if (res.destroyed || rec.closedEarly) return;
        res.write(sseFrame(event));
      }
      if (behaviour.dropConnection) {
        await dropSocket(res);
      } else if (!behaviour.keepOpen) {
        res.end();
      }
      return;
    }
  }
}

/** `gate`: checked before the queue; a Behaviour it returns answers instead (e.g. a 401 for wrong auth headers). */
export async function startFakeUpstream(
  defaultBehaviour: (req: RecordedRequest) => Behaviour,
  gate?: (req: RecordedRequest) => Behaviour | undefined,
): Promise<FakeUpstream> {
  const requests: RecordedRequest[] = [];
  const queue: Behaviour[] = [];

  const server = http.createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const rawBody = Buffer.concat(parts).toString('utf8');
    let body: unknown = rawBody;
    try {
      body = rawBody ? JSON.parse(rawBody) : undefined;
    } catch {
      // keep the raw text
    }
    let markClosed!: () => void;
    const rec: RecordedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body,
      rawBody,
      receivedAt: Date.now(),
      remotePort: req.socket.remotePort ?? 0,
      closed: new Promise<void>((resolve) => (markClosed = resolve)),
      closedEarly: false,
    };
    res.on('close', () => {
      rec.closedEarly = !res.writableEnded;
      markClosed();
    });
    requests.push(rec);
    await respond(res, rec, gate?.(rec) ?? queue.shift() ?? defaultBehaviour(rec));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setNext: (...behaviours) => void queue.push(...behaviours),
    clearNext: () => void queue.splice(0),
    async waitForRequests(count, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} upstream requests, got ${requests.length}`);
        await sleep(10);
      }
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
