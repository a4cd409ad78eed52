#!/usr/bin/env node
// The usage API's speed (docs/usage.md, "Speed"): `PARLEY_KEY=... node scripts/bench-usage.js [baseUrl] [requests]`
// asks GET /v2/usage for the last 30 days by day x model, one request at a time after 10 warm-up
// requests, and prints p50, p95 and the slowest of the timed ones (ms, client side, keep-alive).
const http = require('node:http');

const base = process.argv[2] ?? 'http://127.0.0.1:3000';
const count = Number(process.argv[3] ?? 200);
const key = process.env.PARLEY_KEY;
if (!key) {
  console.error('PARLEY_KEY must be a project key (or the admin key, with USAGE_QUERY=workspace=...&project=...)');
  process.exit(1);
}
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const from = new Date(Date.now() - 30 * 86_400_000).toISOString();
const url = `${base}/v2/usage?from=${encodeURIComponent(from)}&bucket=day&group_by=model${process.env.USAGE_QUERY ? `&${process.env.USAGE_QUERY}` : ''}`;

function once() {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    http
      .get(url, { agent, headers: { 'X-API-Key': key } }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`${res.statusCode}: ${body}`));
          resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, body: JSON.parse(body) });
        });
      })
      .on('error', reject);
  });
}

async function main() {
  for (let i = 0; i < 10; i += 1) await once();
  const times = [];
  let last;
  for (let i = 0; i < count; i += 1) {
    last = await once();
    times.push(last.ms);
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)].toFixed(1);
  console.log(
    `${count} requests: p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${at(1)} ms; ${last.body.data.length} rows, ${last.body.totals.calls} calls`,
  );
  agent.destroy();
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
