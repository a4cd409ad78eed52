import { type Attributes, type Context, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';

import * as attrs from './gen-ai-attributes';
import type { OtelBackend } from './otel-backend';
import type { AttemptTrace, CallTrace, GenAiAttemptInfo, GenAiCallInfo, GenAiOutcome, RequestTrace } from './request-trace';
import * as semconv from './semconv';

/** The span that measures a stream's time to its first content event, a child of the attempt's span. */
export const FIRST_CHUNK_SPAN = 'parley.time_to_first_chunk';
/** The span of a call's durable write: its request log (and thread turns), group-committed (docs/architecture.md, step 9). */
export const DURABLE_WRITE_SPAN = 'parley.durable_write';

const seconds = (fromMs: number): number => (performance.now() - fromMs) / 1000;

/**
 * One request's trace while the export is on: its spans' parent is the request's server span
 * (HTTP), or the caller's remote span from a stored traceparent (a background response). With
 * neither, the first span the call makes is the trace's root and the parent of those after it.
 */
export class SdkRequestTrace implements RequestTrace {
  readonly enabled = true;

  constructor(
    readonly otel: OtelBackend,
    private parent: Context,
    private id: string | null,
  ) {}

  get traceId(): string | null {
    return this.id;
  }

  call(info: GenAiCallInfo): CallTrace {
    return new SdkCallTrace(this, info);
  }

  carried(): string | null {
    const context = trace.getSpanContext(this.parent);
    if (!context || !this.otel.tracer) return null;
    return `00-${context.traceId}-${context.spanId}-0${(context.traceFlags & 1).toString(16)}`;
  }

  /** Starts a span under the request's parent; a root span becomes the parent of the spans after it. */
  startSpan(name: string, kind: SpanKind, attributes: Attributes | undefined): Span {
    const span = this.otel.tracer!.startSpan(name, { kind, attributes }, this.parent);
    if (this.id === null) {
      this.id = span.spanContext().traceId;
      this.parent = trace.setSpan(ROOT_CONTEXT, span);
    }
    return span;
  }
}

class SdkCallTrace implements CallTrace {
  private attributes: Attributes | undefined;

  constructor(
    readonly request: SdkRequestTrace,
    readonly info: GenAiCallInfo,
  ) {}

  /** The call's attributes, made once for all its attempts. */
  get callAttributes(): Attributes {
    return (this.attributes ??= attrs.callAttributes(this.info));
  }

  /** Message contents go into spans when the operator asked, never for a doNotRecord call. */
  get recordsContent(): boolean {
    return this.request.otel.captureContent && !this.info.doNotRecord;
  }

  attempt(info: GenAiAttemptInfo): AttemptTrace {
    return new SdkAttemptTrace(this, info);
  }

  durableWrite(withTurns: boolean): (failed?: boolean) => void {
    if (!this.request.otel.tracer) return () => undefined;
    const span = this.request.startSpan(DURABLE_WRITE_SPAN, SpanKind.INTERNAL, {
      [semconv.ATTR_PARLEY_LOG_ID]: this.info.logId,
      [semconv.ATTR_PARLEY_WRITE_TURNS]: withTurns,
    });
    return (failed) => {
      if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
  }
}

/**
 * One provider attempt: a CLIENT span named `{gen_ai.operation.name} {gen_ai.request.model}` with
 * the GenAI attributes, a child span to a stream's first chunk, and the GenAI metrics once it ended.
 */
class SdkAttemptTrace implements AttemptTrace {
  private readonly startedAt = performance.now();
  private readonly span: Span | null;
  private firstChunkSpan: Span | null = null;
  private firstChunkSeconds: number | undefined;
  private ended = false;

  constructor(
    private readonly call: SdkCallTrace,
    private readonly info: GenAiAttemptInfo,
  ) {
    const { request } = call;
    if (!request.otel.tracer) {
      this.span = null;
      return;
    }
    const operation = call.info.operation;
    this.span = request.startSpan(`${operation} ${info.request.model}`, SpanKind.CLIENT, undefined);
    // An unsampled trace's span records nothing: no attribute is built for it.
    if (!this.span.isRecording()) return;
    this.span.setAttributes(attrs.attemptAttributes(call.callAttributes, info));
    if (call.recordsContent && operation === 'chat')
      this.span.setAttribute(semconv.ATTR_GEN_AI_INPUT_MESSAGES, attrs.inputMessagesOf(info.request));
    if (call.info.stream) {
      this.firstChunkSpan = request.otel.tracer.startSpan(
        FIRST_CHUNK_SPAN,
        { kind: SpanKind.INTERNAL },
        trace.setSpan(ROOT_CONTEXT, this.span),
      );
    }
  }

  firstChunk(): void {
    if (this.firstChunkSeconds !== undefined || this.ended) return;
    this.firstChunkSeconds = seconds(this.startedAt);
    this.firstChunkSpan?.end();
    this.firstChunkSpan = null;
    this.span?.setAttribute(semconv.ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK, this.firstChunkSeconds);
  }

  succeeded(outcome: GenAiOutcome): void {
    this.end(outcome, null);
  }

  failed(errorType: string, outcome?: GenAiOutcome): void {
    this.end(outcome ?? {}, errorType);
  }

  private end(outcome: GenAiOutcome, errorType: string | null): void {
    if (this.ended) return;
    this.ended = true;
    const durationSeconds = seconds(this.startedAt);
    const { attributes: response, tokens } = attrs.outcomeAttributes(outcome, this.call.info.operation);
    if (this.firstChunkSpan) {
      this.firstChunkSpan.setStatus({ code: SpanStatusCode.ERROR });
      this.firstChunkSpan.end();
    }
    const span = this.span;
    if (span?.isRecording()) {
      span.setAttributes(response);
      if (errorType !== null) {
        span.setAttribute(ATTR_ERROR_TYPE, errorType);
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
      }
      if (outcome.completion && this.call.recordsContent && this.call.info.operation === 'chat') {
        span.setAttribute(semconv.ATTR_GEN_AI_OUTPUT_MESSAGES, attrs.outputMessagesOf(outcome.completion));
      }
    }
    span?.end();
    this.record(durationSeconds, response, tokens, errorType);
  }

  /** The GenAI client metrics: the operation's duration, its tokens by type, a stream's time to first chunk. */
  private record(
    durationSeconds: number,
    response: Attributes,
    tokens: ReturnType<typeof attrs.outcomeAttributes>['tokens'],
    errorType: string | null,
  ) {
    const instruments = this.call.request.otel.instruments;
    if (!instruments) return;
    const sets = metricAttributesOf(
      this.call.info.operation,
      this.info.providerType,
      this.info.request.model,
      response[semconv.ATTR_GEN_AI_RESPONSE_MODEL] as string | undefined,
    );
    instruments.duration.record(durationSeconds, errorType === null ? sets.base : { ...sets.base, [ATTR_ERROR_TYPE]: errorType });
    if (this.firstChunkSeconds !== undefined) instruments.timeToFirstChunk.record(this.firstChunkSeconds, sets.base);
    if (tokens) {
      instruments.tokenUsage.record(attrs.inputTokensOf(tokens), sets.input);
      if (this.call.info.operation === 'chat') instruments.tokenUsage.record(attrs.outputTokensOf(tokens), sets.output);
    }
  }
}

interface MetricAttributes {
  base: Attributes;
  input: Attributes;
  output: Attributes;
}
/** The metrics' attribute sets by operation, provider, model and response model: made once, not per call. */
const metricAttributes = new Map<string, MetricAttributes>();
const MAX_METRIC_ATTRIBUTES = 1000;

function metricAttributesOf(operation: string, providerType: string, model: string, responseModel: string | undefined): MetricAttributes {
  const key = `${operation}\u0000${providerType}\u0000${model}\u0000${responseModel ?? ''}`;
  let sets = metricAttributes.get(key);
  if (sets) return sets;
  const base: Attributes = {
    [semconv.ATTR_GEN_AI_OPERATION_NAME]: operation,
    [semconv.ATTR_GEN_AI_PROVIDER_NAME]: attrs.providerNameOf(providerType),
    [semconv.ATTR_GEN_AI_REQUEST_MODEL]: model,
  };
  if (responseModel !== undefined) base[semconv.ATTR_GEN_AI_RESPONSE_MODEL] = responseModel;
  sets = {
    base,
    input: { ...base, [semconv.ATTR_GEN_AI_TOKEN_TYPE]: semconv.GEN_AI_TOKEN_TYPE_VALUE_INPUT },
    output: { ...base, [semconv.ATTR_GEN_AI_TOKEN_TYPE]: semconv.GEN_AI_TOKEN_TYPE_VALUE_OUTPUT },
  };
  if (metricAttributes.size >= MAX_METRIC_ATTRIBUTES) metricAttributes.clear();
  metricAttributes.set(key, sets);
  return sets;
}
