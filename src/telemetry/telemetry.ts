import type { ServerResponse } from 'node:http';

import { Logger } from '@nestjs/common';

import type { TelemetryConfig } from '../config/otel-config';
import type { TracedRequest } from './http-server-span';
import type { OtelBackend } from './otel-backend';
import { NO_TRACE, PassiveTrace, REQUEST_TRACE, type RequestTrace, traceIdOfTraceparent } from './request-trace';
import type { SpanCounts } from './span-outcomes';

type Sdk = typeof import('./telemetry-sdk');
type Middleware = (req: TracedRequest, res: ServerResponse, next: () => void) => void;

/**
 * Parley's OpenTelemetry export (docs/observability.md): off unless an OTLP endpoint is configured
 * (config/otel-config.ts). On, the SDK, its exporters and the GenAI attribute code are loaded
 * once, at start (telemetry-sdk.ts). Off, none of it is loaded, no middleware is mounted, and a
 * request's trace is the NO_TRACE singleton (or its traceparent's id alone: PassiveTrace).
 */
export class Telemetry {
  private readonly logger = new Logger('Telemetry');

  private constructor(private readonly on: { sdk: Sdk; otel: OtelBackend } | null) {}

  static readonly OFF = new Telemetry(null);

  static async start(config: TelemetryConfig): Promise<Telemetry> {
    if (!config.traces && !config.metrics) return Telemetry.OFF;
    const sdk = await import('./telemetry-sdk');
    const telemetry = new Telemetry({ sdk, otel: await sdk.startOtel(config) });
    const signals = [config.traces && `traces (${config.traces.protocol})`, config.metrics && `metrics (${config.metrics.protocol})`];
    telemetry.logger.log(`OpenTelemetry export on: ${signals.filter(Boolean).join(', ')}`);
    return telemetry;
  }

  /** Whether anything is exported. */
  get enabled(): boolean {
    return this.on !== null;
  }

  /** What became of the finished spans since start; null while traces are not exported. */
  get spanCounts(): SpanCounts | null {
    return this.on?.otel.tracer ? this.on.otel.outcomes.counts : null;
  }

  /**
   * The express middleware that gives each request its trace (a server span while traces are
   * exported; while only metrics are, a trace that measures without spans), or null when the
   * export is off: then nothing is mounted at all.
   */
  httpMiddleware(routeOf: (req: TracedRequest) => string | null): Middleware | null {
    if (!this.on) return null;
    const { sdk, otel } = this.on;
    if (otel.tracer) return sdk.serverSpanMiddleware(otel, routeOf);
    return (req, _res, next) => {
      req[REQUEST_TRACE] = sdk.traceOfHeaders(otel, req.headers, traceIdOfTraceparent(req.headers.traceparent));
      next();
    };
  }

  /**
   * The trace of work done later for a request (a background response), from the headers stored
   * with it: its spans continue the stored traceparent, when there is one.
   */
  traceOfHeaders(headers: Record<string, unknown>): RequestTrace {
    const traceId = traceIdOfTraceparent(headers.traceparent);
    if (this.on) return this.on.sdk.traceOfHeaders(this.on.otel, headers, traceId);
    return traceId ? new PassiveTrace(traceId) : NO_TRACE;
  }

  /** The last spans and metrics leave, waiting a couple of seconds at most (otel-backend.ts). */
  async shutdown(): Promise<void> {
    await this.on?.otel.shutdown();
  }
}
