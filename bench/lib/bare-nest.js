'use strict';
/**
 * Scenario (b), the floor of Parley's stack: the same NestJS 11 + express platform, JSON body
 * parsing, one controller route that makes one `undici.request` (keep-alive, undici's global
 * Agent) to the upstream and answers its JSON. No auth, database, templates, logging or metrics:
 * what any Nest gateway in front of the upstream costs at the least. It runs on Parley's own
 * ExpressHttpAdapter (from dist/, which `npm run bench` builds first), whose server builds each
 * request on express's prototypes: the floor gets every saving of the stack that Parley gets
 * (docs/performance-history.md, "Fifth session"). With BARE_CLIENT=fetch it uses
 * the global `fetch` instead (scenario b~, not in the default run: the older, 2-3× slower floor).
 * Plain JS, decorators applied by hand.
 *
 *   UPSTREAM_URL=http://127.0.0.1:PORT/v1 node bench/lib/bare-nest.js   → sends {ready, url} over IPC
 */
require('reflect-metadata');
const { Body, Controller, HttpCode, Module, Post } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const path = require('node:path');
const { request } = require('undici');
const { ExpressHttpAdapter } = require(path.join(__dirname, '..', '..', 'dist', 'common', 'http', 'express-http-adapter.js'));

const upstream = `${process.env.UPSTREAM_URL}/chat/completions`;
const headers = { 'content-type': 'application/json', authorization: 'Bearer sk-bench' };
const useFetch = process.env.BARE_CLIENT === 'fetch';

class PassThroughController {
  async complete(body) {
    if (useFetch) {
      const res = await fetch(upstream, { method: 'POST', headers, body: JSON.stringify(body) });
      return res.json();
    }
    const res = await request(upstream, { method: 'POST', headers, body: JSON.stringify(body) });
    return res.body.json();
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
  const app = await NestFactory.create(BareModule, new ExpressHttpAdapter(), { logger: ['error', 'warn'] });
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
