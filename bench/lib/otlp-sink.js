'use strict';
/**
 * The benchmark's OpenTelemetry collector stand-in for scenario (k): a loopback OTLP/HTTP receiver
 * in its own process that reads every export (traces and metrics, protobuf) and answers 200 with
 * an empty response at once, as a healthy collector does. It decodes nothing and keeps nothing but
 * counts, so it costs the same on the last export as on the first.
 *
 *   node bench/lib/otlp-sink.js      → sends {ready, url} over IPC (the OTEL_EXPORTER_OTLP_ENDPOINT)
 */
const http = require('node:http');

const received = { requests: 0, bytes: 0 };

const server = http.createServer((req, res) => {
  req.on('data', (chunk) => {
    received.bytes += chunk.length;
  });
  req.on('end', () => {
    received.requests += 1;
    const known = req.method === 'POST' && (req.url === '/v1/traces' || req.url === '/v1/metrics');
    res.writeHead(known ? 200 : 404, { 'content-type': 'application/x-protobuf', 'content-length': 0 });
    res.end();
  });
});
server.keepAliveTimeout = 60_000;

server.listen(0, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${server.address().port}`;
  if (process.send) process.send({ ready: true, url });
  else console.log(`OTLP sink listening on ${url}`);
});

process.on('message', (msg) => {
  if (msg === 'counts' && process.send) process.send({ counts: received });
});

process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
