import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';

import { consoleCsp, serveConsole } from '../src/console/console-static';

@Module({})
class EmptyModule {}

/** /console: the built files, index.html for every screen's URL, and the security headers on all of them. */
describe('console static files', () => {
  let dir: string;
  let app: NestExpressApplication;
  let missing: NestExpressApplication;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'parley-console-'));
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(
      path.join(dir, 'index.html'),
      '<!doctype html><title>Parley</title><meta name="csp-nonce" nonce="__PARLEY_CSP_NONCE__"><script type="module" src="/console/assets/app-1.js"></script>',
    );
    writeFileSync(path.join(dir, 'assets', 'app-1.js'), 'console.log(1)');
    app = await NestFactory.create<NestExpressApplication>(EmptyModule, { logger: false });
    serveConsole(app, dir);
    await app.init();
    missing = await NestFactory.create<NestExpressApplication>(EmptyModule, { logger: false });
    serveConsole(missing, path.join(dir, 'nothing-here'));
    await missing.init();
  });
  afterAll(async () => {
    await app.close();
    await missing.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every screen URL with index.html and a CSP without unsafe-inline, with a new style nonce each time', async () => {
    const nonces = new Set<string>();
    for (const url of ['/console', '/console/', '/console/logs?status=error', '/console/prompts/support-reply/versions/2']) {
      const res = await request(app.getHttpServer()).get(url).expect(200);
      expect(res.text).toContain('<title>Parley</title>');
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      const nonce = /nonce="([A-Za-z0-9+/=]{24})"/.exec(res.text)?.[1];
      expect(nonce).toBeDefined();
      nonces.add(nonce!);
      expect(res.headers['content-security-policy']).toBe(consoleCsp(nonce));
      expect(res.headers['content-security-policy']).toContain("script-src 'self';");
      expect(res.headers['content-security-policy']).toContain(`style-src 'self' 'nonce-${nonce}';`);
      expect(res.headers['content-security-policy']).not.toContain('unsafe-inline');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['cache-control']).toBe('no-store');
    }
    expect(nonces.size).toBe(4);
  });

  it('serves hashed assets as immutable and a missing asset as 404', async () => {
    const asset = await request(app.getHttpServer()).get('/console/assets/app-1.js').expect(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['cache-control']).toContain('immutable');
    await request(app.getHttpServer()).get('/console/assets/app-0.js').expect(404);
  });

  it('leads / to the console: GET and HEAD of / answer 302 to /console; other methods and paths are not redirected', async () => {
    for (const url of ['/', '/?from=banner']) {
      const res = await request(app.getHttpServer()).get(url).expect(302);
      expect(res.headers.location).toBe('/console');
    }
    expect((await request(app.getHttpServer()).head('/').expect(302)).headers.location).toBe('/console');
    // Without a build too: /console then says how to make one.
    expect((await request(missing.getHttpServer()).get('/').expect(302)).headers.location).toBe('/console');
    await request(app.getHttpServer()).post('/').expect(404);
    await request(app.getHttpServer()).get('/index.html').expect(404);
  });

  it('says how to build the console when there is no build', async () => {
    const res = await request(missing.getHttpServer()).get('/console').expect(503);
    expect(res.text).toContain('npm run build');
  });
});
