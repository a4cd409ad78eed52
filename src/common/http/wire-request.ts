import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';

import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

import { type RequestTrace, requestTraceOf } from '../../telemetry/request-trace';
import { redactUrl } from './redact-url';

/**
 * One HTTP request as every surface hands it to the core, built once per request at the edge
 * (docs/architecture.md, "The request lifecycle"): controllers take it with `@Wire()` instead of
 * reaching into `@Req()`, and the core's request log reads its address, URL and id from it.
 */
export interface WireRequest {
  /** The parsed JSON body (or the body parser's markers for what was not JSON). */
  body: unknown;
  headers: IncomingHttpHeaders;
  /** The URL as it may be written down: credentials in the query string redacted. */
  url: string;
  /** The client's address: an IP (X-Forwarded-For's, behind `trust proxy`), else nothing. */
  ip: string | undefined;
  /** X-Request-Id as echoed (logging/request-id.ts made it sane). */
  requestId: string | undefined;
  /** W3C trace context, when the caller sent one. */
  trace: { traceparent?: string; tracestate?: string };
  /**
   * The request's trace (docs/observability.md): the spans the core reports to while the
   * OpenTelemetry export is on, else a no-op that knows at most the traceparent's trace id.
   */
  telemetry: RequestTrace;
}

/**
 * What a request log records of the request itself; `telemetry` also carries the trace the core's
 * spans belong to (absent: work that no request started, such as an experiment run's calls).
 */
export type WireLogFields = Pick<WireRequest, 'url' | 'ip' | 'requestId'> & { telemetry?: RequestTrace };

/** The raw pieces a WireRequest is made of: an express request, or a background job's stored copy. */
export interface WireParts {
  body: unknown;
  headers: IncomingHttpHeaders;
  url: string;
  ip: string | undefined | null;
  /** The request's trace, when the edge or a job made one; else one from the traceparent header alone. */
  telemetry?: RequestTrace;
}

/** The longest text form of an IP address (IPv6 with an IPv4 tail and a zone is still far below). */
const MAX_IP_LENGTH = 64;

/**
 * An address worth storing: an IPv4 or IPv6 address, nothing else. Behind `trust proxy`, express's
 * `req.ip` is whatever X-Forwarded-For says, so this is the one place a client-supplied text
 * becomes an address (docs/security.md, "Client addresses").
 */
export function clientAddressOf(ip: unknown): string | undefined {
  return typeof ip === 'string' && ip.length <= MAX_IP_LENGTH && isIP(ip) !== 0 ? ip : undefined;
}

const headerText = (value: string | string[] | undefined): string | undefined => (typeof value === 'string' ? value : undefined);

/** A WireRequest from its parts; applying it to its own output changes nothing. */
export function wireRequestOf(parts: WireParts): WireRequest {
  const traceparent = headerText(parts.headers.traceparent);
  const tracestate = headerText(parts.headers.tracestate);
  return {
    body: parts.body,
    headers: parts.headers,
    url: redactUrl(parts.url),
    ip: clientAddressOf(parts.ip),
    requestId: headerText(parts.headers['x-request-id']),
    trace: { ...(traceparent ? { traceparent } : {}), ...(tracestate ? { tracestate } : {}) },
    telemetry: parts.telemetry ?? requestTraceOf(parts),
  };
}

export const wireLogFields = (wire: WireRequest): WireLogFields => ({
  url: wire.url,
  ip: wire.ip,
  requestId: wire.requestId,
  telemetry: wire.telemetry,
});

const BUILT = Symbol('parley.wireRequest');

/** The request's WireRequest, built on first use and kept on the request. */
export function wireRequestOfHttp(req: Request): WireRequest {
  const holder = req as Request & { [BUILT]?: WireRequest };
  holder[BUILT] ??= wireRequestOf({
    body: req.body,
    headers: req.headers,
    url: req.originalUrl,
    ip: req.ip,
    telemetry: requestTraceOf(req),
  });
  return holder[BUILT];
}

/** `@Wire() wire: WireRequest`: the request as the core takes it. */
export const Wire = createParamDecorator((_: unknown, context: ExecutionContext): WireRequest =>
  wireRequestOfHttp(context.switchToHttp().getRequest<Request>()),
);
