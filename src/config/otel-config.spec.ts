import { ConfigError, loadAppConfig } from './app-config';
import { parseTelemetryConfig } from './otel-config';

const parse = (env: Record<string, string>) => parseTelemetryConfig(env);

describe('parseTelemetryConfig: the standard OTEL_* variables (docs/observability.md)', () => {
  it('is off without an endpoint, whatever else is set', () => {
    expect(parse({})).toEqual({ config: { traces: null, metrics: null, captureContent: false, traceUrlTemplate: null }, problems: [] });
    expect(parse({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_SERVICE_NAME: 'x' }).config).toMatchObject({ traces: null, metrics: null });
  });

  it('exports traces and metrics over http/protobuf by default when OTEL_EXPORTER_OTLP_ENDPOINT is set', () => {
    const { config, problems } = parse({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' });
    expect(problems).toEqual([]);
    expect(config.traces).toEqual({ protocol: 'http/protobuf' });
    expect(config.metrics).toEqual({ protocol: 'http/protobuf', intervalMs: 60_000, timeoutMs: 30_000 });
  });

  it('takes each signal on its own: its endpoint, its protocol, its exporter', () => {
    const traces = parse({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://c:4318/v1/traces' }).config;
    expect(traces).toMatchObject({ traces: { protocol: 'http/protobuf' }, metrics: null });
    const mixed = parse({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
      OTEL_METRIC_EXPORT_INTERVAL: '5000',
      OTEL_METRIC_EXPORT_TIMEOUT: '9000',
    }).config;
    expect(mixed.traces).toEqual({ protocol: 'grpc' });
    // The timeout never exceeds the interval (the reader requires it).
    expect(mixed.metrics).toEqual({ protocol: 'http/json', intervalMs: 5000, timeoutMs: 5000 });
    expect(parse({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_METRICS_EXPORTER: 'none' }).config).toMatchObject({ metrics: null });
    expect(parse({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }).config).toMatchObject({ traces: null });
  });

  it('is off with OTEL_SDK_DISABLED=true (any case)', () => {
    expect(parse({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'TRUE' }).config).toMatchObject({
      traces: null,
      metrics: null,
    });
  });

  it('accepts host:port and unix:// for gRPC only', () => {
    expect(parse({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).config.traces).toEqual({
      protocol: 'grpc',
    });
    expect(parse({ OTEL_EXPORTER_OTLP_ENDPOINT: 'unix:///run/otel.sock', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).problems).toEqual([]);
    expect(parse({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }).problems).toEqual([
      'OTEL_EXPORTER_OTLP_ENDPOINT: must be an http:// or https:// URL',
    ]);
  });

  it('turns message contents on only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true', () => {
    expect(parse({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }).config.captureContent).toBe(true);
    expect(parse({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'false' }).config.captureContent).toBe(false);
  });

  it('takes a trace viewer link with {traceId} in it', () => {
    expect(parse({ PARLEY_TRACE_URL_TEMPLATE: 'http://localhost:16686/trace/{traceId}' }).config.traceUrlTemplate).toBe(
      'http://localhost:16686/trace/{traceId}',
    );
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http' }, /OTEL_EXPORTER_OTLP_PROTOCOL: must be one of/],
    [
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'thrift' },
      /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL/,
    ],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }, /OTEL_EXPORTER_OTLP_ENDPOINT: must be an http/],
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, /OTEL_TRACES_EXPORTER: Parley exports over OTLP only/],
    [{ OTEL_TRACES_SAMPLER: 'sometimes' }, /OTEL_TRACES_SAMPLER: must be one of/],
    [{ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' }, /OTEL_TRACES_SAMPLER_ARG/],
    [{ OTEL_METRIC_EXPORT_INTERVAL: '0' }, /OTEL_METRIC_EXPORT_INTERVAL/],
    [{ OTEL_SDK_DISABLED: 'yes' }, /OTEL_SDK_DISABLED: must be true or false/],
    [{ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'all' }, /OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT/],
    [
      { PARLEY_TRACE_URL_TEMPLATE: 'http://localhost:16686/trace/' },
      /PARLEY_TRACE_URL_TEMPLATE: must be an http\(s\) URL containing \{traceId\}/,
    ],
    [{ PARLEY_TRACE_URL_TEMPLATE: 'javascript:alert({traceId})' }, /PARLEY_TRACE_URL_TEMPLATE/],
  ])('refuses %j at boot, naming the variable', (env, message) => {
    expect(parse(env).problems.join('\n')).toMatch(message);
    expect(() => loadAppConfig(env)).toThrow(ConfigError);
    expect(() => loadAppConfig(env)).toThrow(message);
  });

  it('lists its problems with the other variables', () => {
    expect(() => loadAppConfig({ PORT: 'x', OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(/PORT[\s\S]*OTEL_TRACES_SAMPLER/);
  });

  it('reaches AppConfig', () => {
    expect(loadAppConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).telemetry.traces).toEqual({ protocol: 'http/protobuf' });
    expect(loadAppConfig({}).telemetry.traces).toBeNull();
  });
});
