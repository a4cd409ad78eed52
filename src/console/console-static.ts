import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Application, NextFunction, Request, Response } from 'express';

export const CONSOLE_PATH = '/console';
/** Where `npm run build` puts the console (console/dist, next to src/ and dist/). */
export const CONSOLE_BUILD_DIR = path.resolve(__dirname, '..', '..', 'console', 'dist');

/** In index.html, replaced by each response's nonce (docs/console.md, "Serving and security headers"). */
export const NONCE_PLACEHOLDER = '__PARLEY_CSP_NONCE__';

/**
 * No inline script, no other origin: user-written text (templates, messages, log bodies) that
 * ever reached the page as markup could not run (docs/console.md, "Serving and security headers").
 * Style elements need the page's nonce: the editor and the component library add their own
 * stylesheets at run time, with the nonce they read from index.html's `csp-nonce` meta element.
 */
export function consoleCsp(nonce?: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    nonce ? `style-src 'self' 'nonce-${nonce}'` : "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function securityHeaders(res: Response, nonce?: string): void {
  res.setHeader('Content-Security-Policy', consoleCsp(nonce));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
}

/**
 * Serves the built console at /console: its files (hashed assets cached for a year), and index.html
 * for every other path under it, so a deep link or a reload of /console/logs?status=error opens
 * that screen (the router reads the URL). Without a build, /console says how to make one.
 * `GET /` (and HEAD) is a 302 to /console: the address the server prints leads somewhere. No route
 * of the API is `/`; an API client that follows the redirect gets the console's page.
 */
export function serveConsole(app: INestApplication, dir = CONSOLE_BUILD_DIR): void {
  const express = app as NestExpressApplication;
  // An express route of its own (GET and HEAD of `/` exactly), registered before Nest's routes.
  const router = express.getHttpAdapter().getInstance() as Application;
  router.get('/', (_req, res) => res.redirect(302, CONSOLE_PATH));
  const indexFile = path.join(dir, 'index.html');
  let index: string | null = null;
  express.useStaticAssets(dir, {
    prefix: `${CONSOLE_PATH}/`,
    index: false,
    // /console itself is the app, not a directory to redirect to /console/.
    redirect: false,
    fallthrough: true,
    setHeaders: (res, file) => {
      securityHeaders(res as Response);
      const immutable = file.includes(`${path.sep}assets${path.sep}`);
      res.setHeader('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  express.use(CONSOLE_PATH, (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    // A missing asset is a 404, not the page: a stale tab asking for an old chunk must fail visibly.
    if (req.path.startsWith('/assets/')) return next();
    res.setHeader('Cache-Control', 'no-store');
    if (!index && existsSync(indexFile)) index = readFileSync(indexFile, 'utf8');
    if (!index) {
      securityHeaders(res);
      res.status(503).type('text/plain').send('The console is not built: run `npm run build` (docs/console.md).\n');
      return;
    }
    const nonce = randomBytes(16).toString('base64');
    securityHeaders(res, nonce);
    res.status(200).type('html').send(index.replaceAll(NONCE_PLACEHOLDER, nonce));
  });
}
