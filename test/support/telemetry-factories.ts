import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';

import { FakeUpstream, startFakeOpenAIUpstream } from '../fakes/fake-openai-upstream';
import { OtlpReceiver, ReceivedMetric, ReceivedSpan, startOtlpReceiver } from '../harness/otlp-receiver';
import { createProject, TestProject } from './factories';
import { addProviderCredential, INVOKE_APP_ENV, listen } from './invoke-factories';
import { createTestApp, TestApp } from './test-app';

/** A caller's W3C traceparent: a fresh trace id and the caller's own span id in it, sampled. */
export function callerTrace(): { traceId: string; parentId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  return { traceId, parentId, traceparent: `00-${traceId}-${parentId}-01` };
}

export const SERVER = 2;
export const CLIENT = 3;
export const INTERNAL = 1;
export const STATUS_ERROR = 2;

/** The export settings every telemetry test app starts with: batches leave at once, metrics every 200 ms. */
export function otelEnv(endpoint: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_BSP_SCHEDULE_DELAY: '20',
    OTEL_METRIC_EXPORT_INTERVAL: '200',
    ...extra,
  };
}

/** The spans of one trace, by role: the server span, the gen_ai client spans in attempt order, the rest. */
export function spansByRole(spans: ReceivedSpan[]) {
  const server = spans.filter((s) => s.kind === SERVER);
  const genAi = spans
    .filter((s) => s.kind === CLIENT)
    .sort((a, b) => Number(a.attributes['parley.attempt']) - Number(b.attributes['parley.attempt']));
  const named = (name: string) => spans.filter((s) => s.name === name);
  return { server, genAi, named };
}

/**
 * A telemetry test's world: a loopback OTLP receiver (HTTP, protobuf), two fake OpenAI upstreams
 * registered as providers `alpha` and `beta` (keys that must never show in a span), and the app
 * exporting to the receiver with message contents on, under a resource of its own.
 */
export interface TelemetryWorld {
  t: TestApp;
  p: TestProject;
  base: string;
  otlp: OtlpReceiver;
  alpha: FakeUpstream;
  beta: FakeUpstream;
  /** A POST with the project key and a traceparent. */
  post(path: string, body: object, traceparent: string): Promise<Response>;
  /** The spans of a trace once at least `count` arrived, its server span among them (it ends, and is exported, last). */
  traceOf(traceId: string, count: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

export const PROVIDER_KEYS = { alpha: 'sk-alpha-secret', beta: 'sk-beta-secret' };

export async function telemetryWorld(): Promise<TelemetryWorld> {
  const otlp = await startOtlpReceiver('http');
  const alpha = await startFakeOpenAIUpstream();
  const beta = await startFakeOpenAIUpstream();
  const t = await createTestApp({
    ...INVOKE_APP_ENV,
    // A failing call fails at once (no provider retries with backoff).
    PROVIDER_MAX_RETRIES: '0',
    ...otelEnv(otlp.endpoint, {
      OTEL_SERVICE_NAME: 'parley-under-test',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=e2e',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
    }),
  });
  const base = await listen(t);
  const p = await createProject(t);
  await addProviderCredential(t, p, { name: 'alpha', type: 'openai', baseUrl: alpha.url, apiKey: PROVIDER_KEYS.alpha });
  await addProviderCredential(t, p, { name: 'beta', type: 'openai', baseUrl: beta.url, apiKey: PROVIDER_KEYS.beta });
  return {
    t,
    p,
    base,
    otlp,
    alpha,
    beta,
    post: (path, body, traceparent) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': p.key, traceparent },
        body: JSON.stringify(body),
      }),
    traceOf: (traceId, count) =>
      otlp.waitForSpans(
        (all) => all.filter((s) => s.traceId === traceId),
        (found) => found.length >= count && found.some((s) => s.kind === SERVER),
      ),
    close: async () => {
      await t.close();
      await Promise.all([otlp.close(), alpha.close(), beta.close()]);
    },
  };
}

/** Spans as text (their times are bigints), to look for what must not be in them. */
export const spansText = (spans: ReceivedSpan[]): string =>
  JSON.stringify(spans, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

/**
 * The attribute and metric names of the GenAI conventions' registry as published: every ATTR_* and
 * METRIC_* value `@opentelemetry/semantic-conventions/incubating` exports (the stable ones included).
 */
export function publishedNames(): Set<unknown> {
  const incubating = createRequire(__filename)('@opentelemetry/semantic-conventions/incubating') as Record<string, unknown>;
  return new Set(
    Object.entries(incubating)
      .filter(([name]) => /^(ATTR|METRIC)_/.test(name))
      .map(([, value]) => value),
  );
}

/** Every attribute name of the spans and of the metrics' points, and the metrics' names. */
export function namesSent(spans: ReceivedSpan[], metrics: ReceivedMetric[]): string[] {
  return [
    ...new Set([
      ...spans.flatMap((s) => Object.keys(s.attributes)),
      ...metrics.flatMap((m) => [m.name, ...m.points.flatMap((point) => Object.keys(point.attributes))]),
    ]),
  ];
}

/**
 * Every gen_ai.* name sent (span attribute or metric) is in the published registry; the rest of a
 * gen_ai span is parley.* or a stable convention; the token histogram is split by type.
 */
export async function expectNamesPublished(w: TelemetryWorld, metricNames: string[], minNames: number): Promise<void> {
  const published = publishedNames();
  const metrics = await w.otlp.waitForMetrics((all) => metricNames.every((name) => all.some((m) => m.name === name)));
  const genAiNames = namesSent(w.otlp.spans, metrics).filter((name) => name.startsWith('gen_ai.'));
  expect(genAiNames.length).toBeGreaterThan(minNames);
  expect(genAiNames.filter((name) => !published.has(name))).toEqual([]);
  const outside = new Set(
    w.otlp.spans
      .filter((s) => s.kind === CLIENT)
      .flatMap((s) => Object.keys(s.attributes))
      .filter((name) => !published.has(name) && !name.startsWith('parley.')),
  );
  expect([...outside]).toEqual([]);
  const tokenTypes = metrics
    .filter((m) => m.name === 'gen_ai.client.token.usage')
    .flatMap((m) => m.points.map((pt) => pt.attributes['gen_ai.token.type']));
  expect(new Set(tokenTypes)).toEqual(new Set(['input', 'output']));
  expect(metrics.find((m) => m.name === 'gen_ai.client.operation.duration')).toMatchObject({ unit: 's', kind: 'histogram' });
}
