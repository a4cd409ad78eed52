/**
 * OpenTelemetry export, from the standard `OTEL_*` variables only (docs/observability.md,
 * "Connecting a collector"). This decides whether traces and metrics are exported at all and over
 * which protocol; everything else (endpoint paths, headers, timeouts, compression, certificates,
 * batch sizes, sampler, resource) is read by the OpenTelemetry SDK itself, from the same
 * environment, when the export is on. Checked at start like every other variable: a value the SDK
 * would silently replace by a default is a clear error here instead.
 */

export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** The samplers the SDK builds from OTEL_TRACES_SAMPLER (sdk-trace-base's buildSamplerFromEnv). */
const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];

export interface OtlpExport {
  protocol: OtlpProtocol;
}

export interface MetricsExport extends OtlpExport {
  /** OTEL_METRIC_EXPORT_INTERVAL (ms, default 60000). */
  intervalMs: number;
  /** OTEL_METRIC_EXPORT_TIMEOUT (ms, default 30000). */
  timeoutMs: number;
}

export interface TelemetryConfig {
  /** Spans exported over OTLP; null when off (no endpoint, OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true). */
  traces: OtlpExport | null;
  /** GenAI metrics exported over OTLP beside /metrics; null when off, as for traces. */
  metrics: MetricsExport | null;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: messages in spans (never for a doNotRecord call). */
  captureContent: boolean;
  /** PARLEY_TRACE_URL_TEMPLATE: a trace viewer's URL with `{traceId}` in it, for the logs' `traceUrl`. */
  traceUrlTemplate: string | null;
}

export const TELEMETRY_OFF: TelemetryConfig = { traces: null, metrics: null, captureContent: false, traceUrlTemplate: null };

/** Every variable this file reads (the SDK reads more when the export is on: docs/observability.md). */
export const OTEL_ENV_NAMES = [
  'OTEL_SDK_DISABLED',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
  'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL',
  'OTEL_TRACES_EXPORTER',
  'OTEL_METRICS_EXPORTER',
  'OTEL_TRACES_SAMPLER',
  'OTEL_TRACES_SAMPLER_ARG',
  'OTEL_METRIC_EXPORT_INTERVAL',
  'OTEL_METRIC_EXPORT_TIMEOUT',
  'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT',
  'PARLEY_TRACE_URL_TEMPLATE',
] as const;

type Env = Record<string, string | undefined>;

const text = (env: Env, name: string): string | undefined => {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
};

/** A boolean variable as the OpenTelemetry specification reads it: `true` (any case) or not. */
function flag(env: Env, name: string, problems: string[]): boolean {
  const value = text(env, name)?.toLowerCase();
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  problems.push(`${name}: must be true or false`);
  return false;
}

function positiveInt(env: Env, name: string, fallback: number, problems: string[]): number {
  const value = text(env, name);
  if (value === undefined) return fallback;
  if (!/^[1-9][0-9]{0,9}$/.test(value)) {
    problems.push(`${name}: must be a whole number of milliseconds above 0`);
    return fallback;
  }
  return Number(value);
}

/** An endpoint the exporter can use: an http(s) URL; gRPC also takes `host:port` and `unix://`. */
function endpointProblem(endpoint: string, protocol: OtlpProtocol): string | null {
  if (protocol === 'grpc' && (/^unix:\/\//.test(endpoint) || /^[A-Za-z0-9.-]+:[0-9]{1,5}$/.test(endpoint))) return null;
  try {
    const url = new URL(endpoint);
    if (url.protocol === 'http:' || url.protocol === 'https:') return null;
  } catch {
    // reported below
  }
  return protocol === 'grpc' ? 'must be an http(s):// URL, host:port or unix:// path' : 'must be an http:// or https:// URL';
}

/**
 * One signal (`TRACES` or `METRICS`): on when it has an endpoint (its own or the shared one) and its
 * exporter is `otlp` (the default) rather than `none`.
 */
function signalOf(env: Env, signal: 'TRACES' | 'METRICS', problems: string[]): OtlpExport | null {
  const exporterName = `OTEL_${signal}_EXPORTER`;
  const exporter = text(env, exporterName)?.toLowerCase() ?? 'otlp';
  if (exporter === 'none') return null;
  if (exporter !== 'otlp') {
    problems.push(`${exporterName}: Parley exports over OTLP only: otlp or none`);
    return null;
  }
  const protocolName = text(env, `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`)
    ? `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = text(env, protocolName) ?? 'http/protobuf';
  if (!(OTLP_PROTOCOLS as readonly string[]).includes(protocol)) {
    problems.push(`${protocolName}: must be one of ${OTLP_PROTOCOLS.join(', ')}`);
    return null;
  }
  const endpointName = text(env, `OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`)
    ? `OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`
    : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  const endpoint = text(env, endpointName);
  if (endpoint === undefined) return null;
  const problem = endpointProblem(endpoint, protocol as OtlpProtocol);
  if (problem) {
    problems.push(`${endpointName}: ${problem}`);
    return null;
  }
  return { protocol: protocol as OtlpProtocol };
}

function samplerProblems(env: Env, problems: string[]): void {
  const sampler = text(env, 'OTEL_TRACES_SAMPLER');
  if (sampler !== undefined && !SAMPLERS.includes(sampler)) problems.push(`OTEL_TRACES_SAMPLER: must be one of ${SAMPLERS.join(', ')}`);
  const arg = text(env, 'OTEL_TRACES_SAMPLER_ARG');
  if (arg !== undefined && sampler?.endsWith('traceidratio')) {
    const ratio = Number(arg);
    if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) problems.push('OTEL_TRACES_SAMPLER_ARG: must be a ratio from 0 to 1');
  }
}

function traceUrlTemplateOf(env: Env, problems: string[]): string | null {
  const template = text(env, 'PARLEY_TRACE_URL_TEMPLATE');
  if (template === undefined) return null;
  if (!template.includes('{traceId}') || endpointProblem(template.split('{traceId}').join('0'), 'http/json') !== null) {
    problems.push('PARLEY_TRACE_URL_TEMPLATE: must be an http(s) URL containing {traceId}, e.g. http://localhost:16686/trace/{traceId}');
    return null;
  }
  return template;
}

/** The telemetry settings, and what is wrong with the variables (empty when nothing is). */
export function parseTelemetryConfig(env: Env): { config: TelemetryConfig; problems: string[] } {
  const problems: string[] = [];
  const disabled = flag(env, 'OTEL_SDK_DISABLED', problems);
  const traces = signalOf(env, 'TRACES', problems);
  const metrics = signalOf(env, 'METRICS', problems);
  samplerProblems(env, problems);
  const intervalMs = positiveInt(env, 'OTEL_METRIC_EXPORT_INTERVAL', 60_000, problems);
  const timeoutMs = positiveInt(env, 'OTEL_METRIC_EXPORT_TIMEOUT', 30_000, problems);
  const config: TelemetryConfig = {
    traces: disabled ? null : traces,
    metrics: disabled || !metrics ? null : { ...metrics, intervalMs, timeoutMs: Math.min(timeoutMs, intervalMs) },
    captureContent: flag(env, 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', problems),
    traceUrlTemplate: traceUrlTemplateOf(env, problems),
  };
  // The shared variables' problems once, though both signals read them.
  return { config, problems: [...new Set(problems)] };
}
