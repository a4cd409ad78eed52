import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Body, Controller, Get, INestApplication, Module, Post, Req } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Request } from 'express';

import { answeredWith } from './answer-status';
import { ExpressHttpAdapter } from './express-http-adapter';

@Controller('probe')
class ProbeController {
  @Get(':id')
  read(@Req() req: Request): object {
    return { id: req.params.id, query: req.query, host: req.hostname, json: req.is('json') };
  }

  @Post()
  echo(@Body() body: unknown): unknown {
    return body;
  }

  /** `{"wait": true}`: answered 202, as a deploy to a protected environment is. */
  @Post('maybe-later')
  maybeLater(@Body() body: { wait?: boolean }): unknown {
    return body.wait ? answeredWith(202, { object: 'request', waiting: true }) : { object: 'done' };
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

describe('ExpressHttpAdapter', () => {
  let app: INestApplication;
  let url: string;
  // What node:http built, seen before express's own handler re-parents anything.
  const seen: { req?: object; res?: object } = {};

  beforeAll(async () => {
    app = await NestFactory.create(ProbeModule, new ExpressHttpAdapter(), { logger: false });
    const server = app.getHttpServer() as Server;
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      seen.req = Object.getPrototypeOf(req) as object;
      seen.res = Object.getPrototypeOf(res) as object;
    });
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());

  it("builds each request and response on express's prototypes, so express's re-parenting changes nothing", async () => {
    const res = await fetch(`${url}/probe/7?x=1`);
    expect(res.status).toBe(200);
    const express = app.getHttpAdapter().getInstance() as { request: object; response: object };
    expect(seen.req).toBe(express.request);
    expect(seen.res).toBe(express.response);
  });

  it("keeps express's request and response API: params, query, hostname, type checks, JSON bodies and 404s", async () => {
    expect(await (await fetch(`${url}/probe/7?x=1`)).json()).toEqual({ id: '7', query: { x: '1' }, host: '127.0.0.1', json: null });
    const posted = await fetch(`${url}/probe`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":[1,2]}' });
    expect(posted.status).toBe(201);
    expect(await posted.json()).toEqual({ a: [1, 2] });
    expect((await fetch(`${url}/nowhere`)).status).toBe(404);
  });

  it("sends a body marked with a status of its own (answeredWith) with it, the mark itself unseen; others keep the route's", async () => {
    const post = (body: object) =>
      fetch(`${url}/probe/maybe-later`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const waiting = await post({ wait: true });
    expect([waiting.status, await waiting.json()]).toEqual([202, { object: 'request', waiting: true }]);
    const done = await post({});
    expect([done.status, await done.json()]).toEqual([201, { object: 'done' }]);
  });
});
