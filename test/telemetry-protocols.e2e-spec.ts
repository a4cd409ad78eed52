import { OtlpReceiver, startOtlpReceiver } from './harness/otlp-receiver';
import { createProject, uniqueSlug } from './support/factories';
import { deploy, invokePath } from './support/invoke-factories';
import { callerTrace, CLIENT, otelEnv, SERVER } from './support/telemetry-factories';
import { createTestApp, TestApp } from './support/test-app';

/**
 * OTEL_EXPORTER_OTLP_PROTOCOL (and the per-signal OTEL_EXPORTER_OTLP_TRACES_PROTOCOL): traces and
 * metrics leave over OTLP/HTTP with JSON and over OTLP/gRPC as they do with protobuf (the default,
 * test/telemetry.e2e-spec.ts), to the endpoint the standard variables name.
 */
describe.each<{ name: string; receiver: 'http' | 'grpc'; env: Record<string, string>; contentType: string }>([
  { name: 'http/json', receiver: 'http', env: { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, contentType: 'application/json' },
  { name: 'grpc', receiver: 'grpc', env: { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, contentType: 'grpc' },
  {
    name: 'http/json for traces only, by the per-signal variables',
    receiver: 'http',
    env: { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json', OTEL_METRICS_EXPORTER: 'none' },
    contentType: 'application/json',
  },
])('telemetry over $name', ({ receiver, env, contentType }) => {
  let t: TestApp;
  let otlp: OtlpReceiver;

  beforeAll(async () => {
    otlp = await startOtlpReceiver(receiver);
    const endpoint: Record<string, string> =
      'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' in env ? { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${otlp.endpoint}/v1/traces` } : {};
    t = await createTestApp({ ...otelEnv(otlp.endpoint), ...env, ...endpoint });
  });
  afterAll(async () => {
    await t?.close();
    await otlp?.close();
  });

  it("exports the call's spans in the caller's trace", async () => {
    const p = await createProject(t);
    const slug = uniqueSlug('protocol');
    await deploy(t, p, { slug });
    const caller = callerTrace();
    await t
      .http()
      .post(invokePath(p, slug))
      .set({ 'X-API-Key': p.key, traceparent: caller.traceparent })
      .send({ messages: [{ role: 'user', content: 'over the wire' }] })
      .expect(200);
    const spans = await otlp.waitForSpans(
      (all) => all.filter((s) => s.traceId === caller.traceId),
      (found) => found.some((s) => s.kind === SERVER) && found.some((s) => s.kind === CLIENT),
    );
    const server = spans.find((s) => s.kind === SERVER)!;
    expect(server.parentSpanId).toBe(caller.parentId);
    expect(spans.find((s) => s.kind === CLIENT)).toMatchObject({
      name: 'chat echo',
      parentSpanId: server.spanId,
      attributes: expect.objectContaining({ 'gen_ai.operation.name': 'chat', 'gen_ai.usage.output_tokens': expect.any(Number) }),
    });
    expect([...otlp.contentTypes].some((type) => type.startsWith(contentType))).toBe(true);
    if (env.OTEL_METRICS_EXPORTER !== 'none') {
      const metrics = await otlp.waitForMetrics((all) => all.some((m) => m.name === 'gen_ai.client.token.usage'));
      expect(metrics.find((m) => m.name === 'gen_ai.client.operation.duration')?.points[0].attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'echo',
      });
    }
  });
});
