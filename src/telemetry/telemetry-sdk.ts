import { type Context, defaultTextMapGetter, ROOT_CONTEXT } from '@opentelemetry/api';

import type { OtelBackend } from './otel-backend';
import type { RequestTrace } from './request-trace';
import { SdkRequestTrace } from './sdk-traces';

/**
 * Everything of the export that loads the OpenTelemetry SDK, in one module that Telemetry imports
 * only when an OTLP endpoint is configured (telemetry.ts).
 */
export { serverSpanMiddleware } from './http-server-span';
export { startOtel } from './otel-backend';

/** A trace whose spans continue `headers`' traceparent (a stored request's), or start one of their own. */
export function traceOfHeaders(otel: OtelBackend, headers: Record<string, unknown>, traceId: string | null): RequestTrace {
  const parent: Context = otel.tracer ? otel.propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter) : ROOT_CONTEXT;
  return new SdkRequestTrace(otel, parent, traceId);
}
