'use strict';
/**
 * One load run with autocannon. autocannon's own latency histogram counts whole milliseconds, too
 * coarse for sub-millisecond overheads, so the exact per-response times it emits ('response'
 * events, from process.hrtime) are collected here instead; with `ttfb`, the time to the first body
 * byte of each response (for a stream: its first `data:` event) is taken from the client's
 * parser events the same way.
 */
const autocannon = require('autocannon');
const { summarize } = require('./stats');

function hrMs(start) {
  const [s, ns] = process.hrtime(start);
  return s * 1e3 + ns / 1e6;
}

/**
 * `target`: { url, requests?: autocannon requests, body?, headers? }. Resolves with requests/s,
 * latency and (ttfb) first-byte summaries, and error counts.
 */
function runLoad(target, { connections, durationSec, ttfb = false }) {
  return new Promise((resolve, reject) => {
    const latencies = [];
    const firstBytes = [];
    const statuses = {};
    const watched = new WeakSet();
    let ok = 0;
    let bad = 0;

    const instance = autocannon(
      {
        url: target.url,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(target.headers || {}) },
        body: target.body,
        requests: target.requests,
        connections,
        pipelining: 1,
        duration: durationSec,
        timeout: 20,
      },
      (err, result) => {
        if (err) return reject(err);
        const seconds = result.duration || durationSec;
        resolve({
          connections,
          durationSec: seconds,
          requests: ok,
          non2xx: bad,
          errors: result.errors,
          timeouts: result.timeouts,
          statuses,
          rps: Math.round((ok / seconds) * 10) / 10,
          latencyMs: summarize(latencies),
          ...(ttfb ? { ttfbMs: summarize(firstBytes) } : {}),
          // The per-response figures, for merging runs (not written to the report).
          raw: { latencies, firstBytes },
        });
      },
    );

    instance.on('response', (client, statusCode, _bytes, responseTime) => {
      statuses[statusCode] = (statuses[statusCode] || 0) + 1;
      if (statusCode >= 200 && statusCode < 300) {
        ok++;
        latencies.push(responseTime);
      } else {
        bad++;
      }
      if (ttfb && !watched.has(client)) {
        // From this client's next request on (the first one is warm-up anyway).
        watched.add(client);
        client.on('body', () => {
          const pending = client.pipelinedRequests.peek();
          if (pending && pending.firstByteMs === undefined) {
            pending.firstByteMs = hrMs(pending.startTime);
            firstBytes.push(pending.firstByteMs);
          }
        });
      }
    });
  });
}

module.exports = { runLoad };
