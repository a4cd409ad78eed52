'use strict';
/**
 * Scenario (r), the physical limit of a proxy written in Node: node:http in front, one undici Pool
 * (keep-alive) to the upstream behind, the request body forwarded as bytes and the upstream's
 * answer piped back. No framework, no parsing, no routing: whatever Parley or any Node gateway
 * costs beyond this is the price of what it does, not of the runtime.
 *
 *   UPSTREAM_URL=http://127.0.0.1:PORT/v1 node bench/lib/raw-proxy.js   → sends {ready, url} over IPC
 */
const http = require('node:http');
const { Pool } = require('undici');

const upstream = new URL(`${process.env.UPSTREAM_URL}/chat/completions`);
const pool = new Pool(upstream.origin, { keepAliveTimeout: 60_000 });

const server = http.createServer((req, res) => {
  const parts = [];
  req.on('data', (part) => parts.push(part));
  req.on('end', async () => {
    try {
      const { statusCode, headers, body } = await pool.request({
        path: upstream.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
        body: Buffer.concat(parts),
      });
      const out = { 'content-type': headers['content-type'] ?? 'application/json' };
      if (headers['content-length']) out['content-length'] = headers['content-length'];
      res.writeHead(statusCode, out);
      for await (const chunk of body) res.write(chunk);
      res.end();
    } catch (err) {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(err.message) } }));
    }
  });
});
server.keepAliveTimeout = 60_000;

server.listen(0, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${server.address().port}/v1`;
  if (process.send) process.send({ ready: true, url });
  else console.log(`raw undici proxy listening on ${url}`);
});

process.on('SIGTERM', () => {
  server.close(() => pool.close().finally(() => process.exit(0)));
  server.closeAllConnections();
});
