import type { IncomingMessage, ServerResponse } from 'node:http';

import { type Attributes, defaultTextMapGetter, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_METHOD_ORIGINAL,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';

import type { OtelBackend } from './otel-backend';
import { REQUEST_TRACE, type RequestTrace } from './request-trace';
import { SdkRequestTrace } from './sdk-traces';

/** The methods HTTP semconv names as they are; any other is `_OTHER` (with the original beside it). */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);

/** What the middleware reads of an express request. */
export interface TracedRequest extends IncomingMessage {
  originalUrl?: string;
  protocol?: string;
  ip?: string;
  [REQUEST_TRACE]?: RequestTrace;
}

/**
 * A SERVER span per request, continuing the caller's `traceparent`/`tracestate` (W3C Trace
 * Context), named `{method} {route template}` as HTTP's semantic conventions ask once the route is
 * known (the method alone for a request no route took). The request's trace (SdkRequestTrace) is
 * kept on the request for the WireRequest (common/http/wire-request.ts), so the invocation core's
 * spans are its children. Registered only while traces are exported. The query string is never
 * recorded: a client may put a key in it (docs/security.md, "Keys in URLs").
 */
export function serverSpanMiddleware(otel: OtelBackend, routeOf: (req: TracedRequest) => string | null) {
  const tracer = otel.tracer!;
  return (req: TracedRequest, res: ServerResponse, next: () => void): void => {
    const parent = otel.propagator.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);
    const method = req.method ?? 'GET';
    const known = KNOWN_METHODS.has(method);
    const attributes: Attributes = {
      [ATTR_HTTP_REQUEST_METHOD]: known ? method : '_OTHER',
      [ATTR_URL_PATH]: pathOf(req.originalUrl ?? req.url ?? '/'),
      [ATTR_URL_SCHEME]: req.protocol ?? 'http',
    };
    if (!known) attributes[ATTR_HTTP_REQUEST_METHOD_ORIGINAL] = method;
    if (req.ip) attributes[ATTR_CLIENT_ADDRESS] = req.ip;
    const agent = req.headers['user-agent'];
    if (typeof agent === 'string') attributes[ATTR_USER_AGENT_ORIGINAL] = agent;
    const span = tracer.startSpan(known ? method : 'HTTP', { kind: SpanKind.SERVER, attributes }, parent);
    req[REQUEST_TRACE] = new SdkRequestTrace(otel, trace.setSpan(parent, span), span.spanContext().traceId);
    // 'close' follows 'finish', or comes alone when the connection ended first.
    res.once('close', () => {
      const route = routeOf(req);
      if (route !== null) {
        span.setAttribute(ATTR_HTTP_ROUTE, route);
        span.updateName(`${known ? method : 'HTTP'} ${route}`);
      }
      if (res.headersSent) {
        span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, res.statusCode);
        if (res.statusCode >= 500) {
          span.setAttribute(ATTR_ERROR_TYPE, String(res.statusCode));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
      }
      // Closed before its end was written: the client went away (a stream left mid-way).
      if (!res.writableFinished) span.setAttribute(ATTR_ERROR_TYPE, 'client_closed');
      span.end();
    });
    next();
  };
}

const pathOf = (url: string): string => {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
};
