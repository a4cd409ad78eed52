import { type Attributes, type Counter, createNoopMeter, type Meter, type MeterProvider } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';

/** The span processor's own metric (sdk-trace's SpanProcessorMetrics): spans it finished with, `error.type` when not exported. */
const PROCESSED = 'otel.sdk.processor.span.processed';
/** The `error.type` of a span dropped because the queue was full. */
const QUEUE_FULL = 'queue_full';

export interface SpanCounts {
  exported: number;
  dropped: number;
  failed: number;
}

/**
 * What became of the finished spans, as the BatchSpanProcessor reports it to its self-observation
 * meter: exported, dropped (its queue was full: a collector down or slow), or failed to export.
 * Read by GET /metrics (parley_telemetry_spans_total): a meter of its own, not the OTLP one, so the
 * count is there when the collector is not.
 */
export class SpanOutcomes {
  readonly counts: SpanCounts = { exported: 0, dropped: 0, failed: 0 };

  private count(value: number, attributes: Attributes | undefined): void {
    const error = attributes?.[ATTR_ERROR_TYPE];
    if (error === undefined) this.counts.exported += value;
    else if (error === QUEUE_FULL) this.counts.dropped += value;
    else this.counts.failed += value;
  }

  meterProvider(): MeterProvider {
    const meter: Meter = createNoopMeter();
    const noopCounter = meter.createCounter.bind(meter);
    const processed = { add: (value: number, attributes?: Attributes) => this.count(value, attributes) } as Counter;
    meter.createCounter = (name, options) => (name === PROCESSED ? processed : noopCounter(name, options)) as never;
    return { getMeter: () => meter };
  }
}
