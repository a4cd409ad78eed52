import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gunzipSync } from 'node:zlib';

import * as grpc from '@grpc/grpc-js';

import {
  decodeMetricsJson,
  decodeMetricsProtobuf,
  decodeTracesJson,
  decodeTracesProtobuf,
  type ReceivedMetric,
  type ReceivedSpan,
} from './otlp-protobuf';

export type { ReceivedMetric, ReceivedSpan } from './otlp-protobuf';

/**
 * A loopback OTLP receiver (a collector's receiving end) for the telemetry tests: OTLP/HTTP with
 * protobuf or JSON bodies on /v1/traces and /v1/metrics, or OTLP/gRPC (the TraceService and
 * MetricsService Export methods), decoding what it gets into spans and metrics.
 *
 *   const otlp = await startOtlpReceiver('http');  // or 'grpc'
 *   env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, ... }
 *   const spans = await otlp.waitForSpans((all) => all.filter(...), (found) => found.length >= 3);
 *   otlp.mode = 'hang';   // read requests and never answer (a collector that stalls)
 */
export interface OtlpReceiver {
  endpoint: string;
  spans: ReceivedSpan[];
  metrics: ReceivedMetric[];
  /** Export requests received (bodies decoded or not). */
  requests: number;
  /** Content types of the HTTP requests received (or `grpc`). */
  contentTypes: Set<string>;
  mode: 'ok' | 'hang';
  /** Polls until `done(select(spans))` or the deadline; returns the selection (fails the test at the deadline). */
  waitForSpans(
    select: (spans: ReceivedSpan[]) => ReceivedSpan[],
    done: (found: ReceivedSpan[]) => boolean,
    deadlineMs?: number,
  ): Promise<ReceivedSpan[]>;
  waitForMetrics(done: (metrics: ReceivedMetric[]) => boolean, deadlineMs?: number): Promise<ReceivedMetric[]>;
  close(): Promise<void>;
}

const TRACE_EXPORT = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
const METRICS_EXPORT = '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export';

async function poll<T>(read: () => T, done: (value: T) => boolean, deadlineMs: number, what: string): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`OTLP receiver: ${what} did not arrive within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function receiverBase(): Omit<OtlpReceiver, 'endpoint' | 'close'> {
  const base: Omit<OtlpReceiver, 'endpoint' | 'close'> = {
    spans: [],
    metrics: [],
    requests: 0,
    contentTypes: new Set(),
    mode: 'ok',
    waitForSpans: (select, done, deadlineMs = 20_000) => poll(() => select(base.spans), done, deadlineMs, 'spans'),
    waitForMetrics: (done, deadlineMs = 20_000) => poll(() => base.metrics, done, deadlineMs, 'metrics').then(() => base.metrics),
  };
  return base;
}

export async function startOtlpReceiver(protocol: 'http' | 'grpc' = 'http'): Promise<OtlpReceiver> {
  return protocol === 'grpc' ? startGrpc() : startHttp();
}

async function startHttp(): Promise<OtlpReceiver> {
  const base = receiverBase();
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      base.requests += 1;
      if (base.mode === 'hang') return;
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const type = String(req.headers['content-type'] ?? '');
      base.contentTypes.add(type);
      const json = type.includes('json');
      if (req.url === '/v1/traces')
        base.spans.push(...(json ? decodeTracesJson(JSON.parse(body.toString('utf8'))) : decodeTracesProtobuf(body)));
      else if (req.url === '/v1/metrics')
        base.metrics.push(...(json ? decodeMetricsJson(JSON.parse(body.toString('utf8'))) : decodeMetricsProtobuf(body)));
      else {
        res.writeHead(404).end();
        return;
      }
      // An empty Export*ServiceResponse: full success.
      if (json) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(base, {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

async function startGrpc(): Promise<OtlpReceiver> {
  const base = receiverBase();
  const server = new grpc.Server();
  const raw = (buf: Buffer) => buf;
  const method = (path: string) => ({
    path,
    requestStream: false,
    responseStream: false,
    requestSerialize: raw,
    requestDeserialize: raw,
    responseSerialize: raw,
    responseDeserialize: raw,
  });
  const answer = (decode: (body: Buffer) => void) => (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
    base.requests += 1;
    base.contentTypes.add('grpc');
    if (base.mode === 'hang') return;
    decode(call.request);
    callback(null, Buffer.alloc(0));
  };
  server.addService({ Export: method(TRACE_EXPORT) } as grpc.ServiceDefinition, {
    Export: answer((body) => base.spans.push(...decodeTracesProtobuf(body))),
  });
  server.addService({ Export: method(METRICS_EXPORT) } as grpc.ServiceDefinition, {
    Export: answer((body) => base.metrics.push(...decodeMetricsProtobuf(body))),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
  );
  return Object.assign(base, {
    endpoint: `http://127.0.0.1:${port}`,
    close: async () => server.forceShutdown(),
  });
}
