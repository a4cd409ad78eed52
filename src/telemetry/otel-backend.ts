import * as fs from 'node:fs';
import * as path from 'node:path';

import type { Histogram, Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { defaultResource, detectResources, envDetector, type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, type BufferConfig, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';

import type { MetricsExport, OtlpExport, TelemetryConfig } from '../config/otel-config';
import * as semconv from './semconv';
import { SpanOutcomes } from './span-outcomes';

/** The GenAI client metrics (docs/observability.md, "Metrics"). */
export interface GenAiInstruments {
  tokenUsage: Histogram;
  duration: Histogram;
  timeToFirstChunk: Histogram;
}

/**
 * The OpenTelemetry SDK as Parley runs it: loaded (this module and everything it imports) only
 * when an OTLP endpoint is configured, never registered globally (several applications share a
 * process in the tests; nothing else in the process is instrumented), and handed spans explicitly
 * with their parent context, without a context manager (no AsyncLocalStorage on the hot path).
 */
export interface OtelBackend {
  tracer: Tracer | null;
  instruments: GenAiInstruments | null;
  propagator: W3CTraceContextPropagator;
  captureContent: boolean;
  /** Spans exported, dropped (the queue was full) and failed to export, for GET /metrics. */
  outcomes: SpanOutcomes;
  shutdown(): Promise<void>;
}

/** package.json's version: two levels up from both src/telemetry and dist/telemetry. */
function parleyVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** `service.name` parley unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise (they win). */
function resourceOf(): Resource {
  return defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'parley', [ATTR_SERVICE_VERSION]: parleyVersion() }))
    .merge(detectResources({ detectors: [envDetector] }));
}

/** The span exporter of a protocol; it reads its endpoint, headers, timeout and TLS files from the OTEL_* variables itself. */
async function spanExporterOf({ protocol }: OtlpExport): Promise<SpanExporter> {
  if (protocol === 'grpc') return new (await import('@opentelemetry/exporter-trace-otlp-grpc')).OTLPTraceExporter();
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
}

async function metricExporterOf({ protocol }: OtlpExport): Promise<PushMetricExporter> {
  if (protocol === 'grpc') return new (await import('@opentelemetry/exporter-metrics-otlp-grpc')).OTLPMetricExporter();
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-metrics-otlp-http')).OTLPMetricExporter();
  return new (await import('@opentelemetry/exporter-metrics-otlp-proto')).OTLPMetricExporter();
}

function instrumentsOf(provider: MeterProvider): GenAiInstruments {
  const meter = provider.getMeter('parley', parleyVersion());
  return {
    tokenUsage: meter.createHistogram(semconv.METRIC_GEN_AI_CLIENT_TOKEN_USAGE, {
      description: 'Number of input and output tokens used',
      unit: '{token}',
      advice: { explicitBucketBoundaries: semconv.TOKEN_BUCKETS },
    }),
    duration: meter.createHistogram(semconv.METRIC_GEN_AI_CLIENT_OPERATION_DURATION, {
      description: 'GenAI operation duration',
      unit: 's',
      advice: { explicitBucketBoundaries: semconv.DURATION_BUCKETS },
    }),
    timeToFirstChunk: meter.createHistogram(semconv.METRIC_GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK, {
      description: 'Time to receive the first chunk of a streamed answer',
      unit: 's',
      advice: { explicitBucketBoundaries: semconv.DURATION_BUCKETS },
    }),
  };
}

/** How long shutting down may wait for the last spans and metrics to leave: a collector that is down never holds a shutdown. */
const SHUTDOWN_WAIT_MS = 2000;

const within = (ms: number, work: Promise<unknown>): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    work.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      () => {
        clearTimeout(timer);
        resolve();
      },
    );
  });

/**
 * Spans go through the SDK's BatchSpanProcessor: finished spans wait in a queue of at most
 * OTEL_BSP_MAX_QUEUE_SIZE (2048), exported in batches every OTEL_BSP_SCHEDULE_DELAY (5 s) one
 * export at a time, each bounded by OTEL_BSP_EXPORT_TIMEOUT; a span ending while the queue is full
 * is dropped and counted (`parley_telemetry_spans_total{outcome="dropped"}`). A call only ever
 * appends to that queue: a collector that is slow or down never delays or fails it, and the memory
 * the export holds stays bounded (docs/observability.md, "When the collector is down").
 */
export async function startOtel(config: TelemetryConfig): Promise<OtelBackend> {
  const resource = resourceOf();
  const outcomes = new SpanOutcomes();
  let tracerProvider: BasicTracerProvider | null = null;
  if (config.traces) {
    // sdk-trace-base's BatchSpanProcessor passes its options on to sdk-trace's, which counts what it
    // drops through `selfObsMeterProvider` (experimental there; test/telemetry-collector-down.e2e-spec.ts holds it).
    const options: BufferConfig & { selfObsMeterProvider: ReturnType<SpanOutcomes['meterProvider']> } = {
      selfObsMeterProvider: outcomes.meterProvider(),
    };
    // The sampler (OTEL_TRACES_SAMPLER, parent-based by default) and span limits come from the environment.
    tracerProvider = new BasicTracerProvider({
      resource,
      spanProcessors: [new BatchSpanProcessor(await spanExporterOf(config.traces), options)],
    });
  }
  let meterProvider: MeterProvider | null = null;
  if (config.metrics) {
    const metrics: MetricsExport = config.metrics;
    const reader = new PeriodicExportingMetricReader({
      exporter: await metricExporterOf(metrics),
      exportIntervalMillis: metrics.intervalMs,
      exportTimeoutMillis: metrics.timeoutMs,
    });
    meterProvider = new MeterProvider({ resource, readers: [reader] });
  }
  return {
    tracer: tracerProvider?.getTracer('parley', parleyVersion()) ?? null,
    instruments: meterProvider ? instrumentsOf(meterProvider) : null,
    propagator: new W3CTraceContextPropagator(),
    captureContent: config.captureContent,
    outcomes,
    shutdown: () => within(SHUTDOWN_WAIT_MS, Promise.all([tracerProvider?.shutdown(), meterProvider?.shutdown()])),
  };
}
