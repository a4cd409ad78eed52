import type { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

import { MetricsService, UNMATCHED_ROUTE } from './metrics.service';

/** nginx's convention, also used by the invoke path: the client went away before the response ended. */
export const CLIENT_CLOSED = 499;

/** Requests that reached Nest's not-found handler: no controller route took them. */
const unmatched = new WeakSet<object>();

/**
 * Counts and times every HTTP request (see httpMetrics). Call before app.init(): it also marks the
 * requests Nest's not-found handler answers, because Nest's own middleware (the request logger) is
 * mounted as a catch-all route, `/{*path}`, which leaves `req.route` set on requests that no
 * controller route matched.
 */
export function instrumentHttp(app: INestApplication): void {
  app.use(httpMetrics(app.get(MetricsService)));
  const adapter = app.getHttpAdapter();
  const setNotFoundHandler = adapter.setNotFoundHandler?.bind(adapter);
  if (!setNotFoundHandler) return;
  adapter.setNotFoundHandler = (handler: RequestHandler, prefix?: string) =>
    setNotFoundHandler((req: Request, res: Response, next: NextFunction) => {
      unmatched.add(req);
      return handler(req, res, next);
    }, prefix);
}

/**
 * Counts and times every HTTP request once its response is over: errors answered by the exception
 * filter and streamed (SSE) responses included. Registered with app.use before any route, so the
 * route is read at the end, when the router has set `req.route`; the label is the route template,
 * never the raw URL.
 */
export function httpMetrics(metrics: MetricsService): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    let recorded = false;
    const record = (status: number) => {
      if (recorded) return;
      recorded = true;
      metrics.observeHttp({
        method: req.method,
        route: routeTemplate(req),
        status,
        durationSeconds: Number(process.hrtime.bigint() - start) / 1e9,
      });
    };
    res.once('finish', () => record(res.statusCode));
    // 'close' without 'finish': the connection ended first (client gone mid-stream).
    res.once('close', () => record(res.writableFinished ? res.statusCode : CLIENT_CLOSED));
    next();
  };
}

/** The matched route's template (`/v2/threads/:threadId`), or `unmatched`. */
export function routeTemplate(req: Request): string {
  if (unmatched.has(req)) return UNMATCHED_ROUTE;
  const path: unknown = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path !== 'string') return UNMATCHED_ROUTE;
  return `${req.baseUrl ?? ''}${path}` || '/';
}
