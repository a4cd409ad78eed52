import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Longest label value kept; longer values are cut (model names come from stored versions and request overrides). */
export const MAX_LABEL_LENGTH = 100;
/** Distinct model label values kept per process; later new models are counted under `other`. */
export const MAX_MODEL_VALUES = 200;
/** Distinct project label values kept per process; later new projects are counted under `other`. */
export const MAX_PROJECT_VALUES = 1000;
/** The route label of requests no route matched (404s, body rejected before routing, static assets). */
export const UNMATCHED_ROUTE = 'unmatched';

export interface HttpObservation {
  method: string;
  /** The route template (`/v2/threads/:threadId`), never the raw URL; `unmatched` when none matched. */
  route: string;
  status: number;
  durationSeconds: number;
}

export interface ProviderObservation {
  /** `<workspace>/<project>` slugs of the caller. */
  project?: string;
  /** The provider name versions refer to: `local`, or a provider credential's name. */
  provider: string | null;
  model: string | null;
  /** The HTTP status Parley answered the invoke with. */
  status: number;
  durationSeconds: number;
  promptTokens?: number | null;
  completionTokens?: number | null;
  /** Tokens by kind (docs/usage.md): uncached_input, cache_read, cache_write, reasoning, output. */
  tokensByKind?: Record<string, number | null | undefined>;
  /** The call's cost in USD; null when unpriced. */
  costUsd?: number | null;
  /** Streams only: from the start of the invoke to the first content chunk sent to the client. */
  timeToFirstTokenSeconds?: number | null;
}

/** A label value safe to export: a string, never empty, at most MAX_LABEL_LENGTH characters. */
export function boundedLabel(value: unknown, fallback = 'unknown'): string {
  const text = typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
  return text.length === 0 ? fallback : text.slice(0, MAX_LABEL_LENGTH);
}

/**
 * Prometheus metrics of one application instance, on a registry of its own (not prom-client's
 * global one: tests run several applications in one process). Served at GET /metrics.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly models = new Set<string>();
  private readonly projects = new Set<string>();

  private readonly httpRequests = new Counter({
    name: 'parley_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  private readonly httpDuration = new Histogram({
    name: 'parley_http_request_duration_seconds',
    help: 'Time from receiving an HTTP request to the end of its response (whole stream for SSE), by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });

  private readonly providerRequests = new Counter({
    name: 'parley_provider_requests_total',
    help: 'Model provider calls made by invokes, by provider, model and the status Parley answered with',
    labelNames: ['provider', 'model', 'status'] as const,
    registers: [this.registry],
  });

  private readonly providerDuration = new Histogram({
    name: 'parley_provider_request_duration_seconds',
    help: 'Invoke duration up to the end of the provider call (whole stream when streamed), by provider and model',
    labelNames: ['provider', 'model'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300],
    registers: [this.registry],
  });

  private readonly providerErrors = new Counter({
    name: 'parley_provider_errors_total',
    help: 'Model provider calls that failed, by provider and the status Parley answered with',
    labelNames: ['provider', 'status'] as const,
    registers: [this.registry],
  });

  private readonly tokens = new Counter({
    name: 'parley_tokens_total',
    help: 'Tokens reported by providers, by provider, model and kind (prompt or completion)',
    labelNames: ['provider', 'model', 'kind'] as const,
    registers: [this.registry],
  });

  private readonly usageTokens = new Counter({
    name: 'parley_usage_tokens_total',
    help: 'Tokens of invokes by project (workspace/project), model and kind: uncached_input, cache_read, cache_write, reasoning, output (docs/usage.md)',
    labelNames: ['project', 'model', 'kind'] as const,
    registers: [this.registry],
  });

  private readonly usageCost = new Counter({
    name: 'parley_usage_cost_usd_total',
    help: 'Cost in USD of priced invokes by project (workspace/project) and model (docs/usage.md); unpriced calls add nothing',
    labelNames: ['project', 'model'] as const,
    registers: [this.registry],
  });

  private readonly timeToFirstToken = new Histogram({
    name: 'parley_time_to_first_token_seconds',
    help: 'Streamed invokes: time from the start of the invoke to the first content chunk, by provider and model',
    labelNames: ['provider', 'model'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 20, 30, 60],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * The hook for series owned by other modules (limits, the request-log writer, the database pool):
   * a gauge on this instance's registry whose value `collect` sets at every scrape. Name it
   * `parley_<area>_<what>` and list it in docs/operations.md.
   */
  gauge<L extends string>(name: string, help: string, labelNames: readonly L[], collect: (gauge: Gauge<L>) => void): Gauge<L> {
    return new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        collect(this);
      },
    });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The text exposition of every metric of this instance. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  observeHttp({ method, route, status, durationSeconds }: HttpObservation): void {
    const labels = { method: boundedLabel(method), route: boundedLabel(route, UNMATCHED_ROUTE), status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, Math.max(0, durationSeconds));
  }

  observeProvider(call: ProviderObservation): void {
    const provider = boundedLabel(call.provider);
    const model = this.modelLabel(call.model);
    const status = String(call.status);
    this.providerRequests.inc({ provider, model, status });
    this.providerDuration.observe({ provider, model }, Math.max(0, call.durationSeconds));
    if (call.status >= 400) this.providerErrors.inc({ provider, status });
    if (isCount(call.promptTokens)) this.tokens.inc({ provider, model, kind: 'prompt' }, call.promptTokens);
    if (isCount(call.completionTokens)) this.tokens.inc({ provider, model, kind: 'completion' }, call.completionTokens);
    if (call.project !== undefined) {
      const project = this.bounded(this.projects, MAX_PROJECT_VALUES, call.project);
      for (const [kind, n] of Object.entries(call.tokensByKind ?? {})) if (isCount(n)) this.usageTokens.inc({ project, model, kind }, n);
      if (typeof call.costUsd === 'number' && Number.isFinite(call.costUsd) && call.costUsd > 0)
        this.usageCost.inc({ project, model }, call.costUsd);
    }
    const ttft = call.timeToFirstTokenSeconds;
    if (typeof ttft === 'number' && Number.isFinite(ttft) && ttft >= 0) this.timeToFirstToken.observe({ provider, model }, ttft);
  }

  /** Cut to MAX_LABEL_LENGTH, and `other` once MAX_MODEL_VALUES distinct models have been seen. */
  private modelLabel(model: unknown): string {
    return this.bounded(this.models, MAX_MODEL_VALUES, model);
  }

  private bounded(seen: Set<string>, max: number, value: unknown): string {
    const label = boundedLabel(value);
    if (seen.has(label)) return label;
    if (seen.size >= max) return 'other';
    seen.add(label);
    return label;
  }
}

const isCount = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isFinite(n) && n > 0;
