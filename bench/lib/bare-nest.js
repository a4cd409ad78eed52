'use strict';
/**
 * Scenario (b), the floor for Parley's stack: the same NestJS 11 + express platform, JSON body
 * parsing, one controller route that makes one fetch (undici, keep-alive pool) to the upstream and
 * answers its JSON (with BARE_CLIENT=node-http, one node:http request instead: scenario b'). No auth, database, templates, logging or metrics: what any Nest gateway in
 * front of the upstream costs at the least. Plain JS, decorators applied by hand.
 *
 *   UPSTREAM_URL=http://127.0.0.1:PORT/v1 node bench/lib/bare-nest.js   → sends {ready, url} over IPC
 */
require('reflect-metadata');
const { Body, Controller, HttpCode, Module, Post } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');

const upstream = `${process.env.UPSTREAM_URL}/chat/completions`;
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true });

/** BARE_CLIENT=node-http: the same call with node:http (what Parley's providers use), for reference. */
function postWithNodeHttp(body) {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = http.request(upstream, { method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench', 'content-length': Buffer.byteLength(data) } }, (res) => {
      const parts = [];
      res.on('data', (part) => parts.push(part));
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(parts).toString('utf8')));
        } catch (err) {
          reject(err);
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(data);
  });
}

class PassThroughController {
  async complete(body) {
    if (process.env.BARE_CLIENT === 'node-http') return postWithNodeHttp(body);
    const res = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
      body: JSON.stringify(body),
    });
    return res.json();
  }
}
Reflect.decorate(
  [Post('chat/completions'), HttpCode(200), (target, key) => Body()(target, key, 0)],
  PassThroughController.prototype,
  'complete',
  Object.getOwnPropertyDescriptor(PassThroughController.prototype, 'complete'),
);
Reflect.decorate([Controller('v1')], PassThroughController);

class BareModule {}
Reflect.decorate([Module({ controllers: [PassThroughController] })], BareModule);

async function main() {
  const app = await NestFactory.create(BareModule, { logger: ['error', 'warn'] });
  app.enableShutdownHooks();
  await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${app.getHttpServer().address().port}/v1`;
  if (process.send) process.send({ ready: true, url });
  else console.log(`bare Nest pass-through listening on ${url}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
