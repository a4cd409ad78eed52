// A worker thread of test/support/stream-load.ts (plain JavaScript: a worker runs outside jest's
// TypeScript transform): opens `count` streamed invokes and reports each one's start and end, so
// that reading them does not delay the event loop of the test that measures latencies.
const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');

const { url, key, body, count } = workerData;
const payload = JSON.stringify({ ...body, stream: true });
const requests = [];

for (let i = 0; i < count; i++) {
  let started = false;
  let ended = false;
  const end = (outcome) => {
    if (ended) return;
    ended = true;
    if (!started) parentPort.postMessage({ type: 'started', i });
    parentPort.postMessage({ type: 'finished', i, outcome });
  };
  const req = http.request(
    url,
    {
      method: 'POST',
      agent: false,
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) },
    },
    (res) => {
      let bytes = 0;
      let tail = Buffer.alloc(0);
      let text = '';
      res.on('data', (chunk) => {
        bytes += chunk.length;
        // Only the end matters: keep the last few bytes.
        tail = chunk.length >= 32 ? chunk.subarray(-32) : Buffer.concat([tail, chunk]).subarray(-32);
        if (res.statusCode !== 200 && text.length < 2000) text += chunk.toString();
        if (!started) {
          started = true;
          parentPort.postMessage({ type: 'started', i });
        }
      });
      res.on('end', () => end({ status: res.statusCode, bytes, done: tail.toString('latin1').endsWith('data: [DONE]\n\n'), text }));
      res.on('error', () => end({ status: res.statusCode, bytes, done: false, text }));
    },
  );
  req.on('error', (err) => end({ status: 0, bytes: 0, done: false, text: String(err) }));
  req.end(payload);
  requests.push(req);
}

parentPort.on('message', (message) => {
  if (message === 'abort') for (const req of requests) req.destroy();
});
