import { createServer } from 'node:net';

import { OtlpReceiver, startOtlpReceiver } from './harness/otlp-receiver';
import { createProject, TestProject, uniqueSlug } from './support/factories';
import { deploy, invokePath } from './support/invoke-factories';
import { callerTrace, otelEnv } from './support/telemetry-factories';
import { createTestApp, TestApp } from './support/test-app';

/** Spans each call below makes: the server span, one gen_ai span, the durable write. */
const SPANS_PER_CALL = 3;
const QUEUE = 6;
const BATCH = 2;

/** `parley_telemetry_spans_total{outcome}` from GET /metrics. */
async function spanCounts(t: TestApp): Promise<Record<string, number>> {
  const text = (await t.http().get('/metrics').expect(200)).text;
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^parley_telemetry_spans_total\{outcome="(\w+)"\} (\d+)/gm)) counts[match[1]] = Number(match[2]);
  return counts;
}

/** `n` calls one after another, each timed; `between` runs after each call, outside its time. */
async function calls(t: TestApp, p: TestProject, slug: string, n: number, between?: (i: number) => Promise<unknown>): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await t
      .http()
      .post(invokePath(p, slug))
      .set({ 'X-API-Key': p.key, traceparent: callerTrace().traceparent })
      .send({ messages: [{ role: 'user', content: `call ${i}` }] })
      .expect(200);
    latencies.push(performance.now() - started);
    await between?.(i);
  }
  return latencies;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Issue 45: a collector that is down or slow never delays or fails a call, and the export's
 * memory stays bounded (docs/observability.md, "When the collector is down"): finished spans wait
 * in the BatchSpanProcessor's queue of OTEL_BSP_MAX_QUEUE_SIZE, and those that find it full are
 * dropped and counted, never held.
 */
describe('telemetry: a collector that never answers', () => {
  let t: TestApp;
  let p: TestProject;
  let otlp: OtlpReceiver;
  let slug: string;

  beforeAll(async () => {
    otlp = await startOtlpReceiver('http');
    t = await createTestApp(
      otelEnv(otlp.endpoint, {
        OTEL_BSP_MAX_QUEUE_SIZE: String(QUEUE),
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: String(BATCH),
        // An export that hangs stays in flight for the whole test: nothing leaves the queue.
        OTEL_BSP_EXPORT_TIMEOUT: '120000',
        OTEL_EXPORTER_OTLP_TIMEOUT: '120000',
        OTEL_METRICS_EXPORTER: 'none',
      }),
    );
    p = await createProject(t);
    slug = uniqueSlug('collector-down');
    await deploy(t, p, { slug });
  });
  afterAll(async () => {
    await otlp?.close();
  });

  it('answers every call as fast as with a collector that answers, drops what the queue cannot hold, and counts it', async () => {
    // A warm-up with the collector answering: the baseline latency. Each call's spans are let out
    // before the next (the queue here is tiny: on a busy machine it would drop some already).
    const exportedBefore = otlp.spans.length;
    const before = await calls(t, p, slug, 10, (i) =>
      otlp.waitForSpans(
        (all) => all,
        (all) => all.length >= exportedBefore + (i + 1) * SPANS_PER_CALL,
      ),
    );
    const exported = (await spanCounts(t)).exported;
    expect(exported).toBeGreaterThanOrEqual(10 * SPANS_PER_CALL);

    otlp.mode = 'hang';
    const during = await calls(t, p, slug, 40);
    expect(otlp.requests).toBeGreaterThan(0);
    // No call waits for the export: the median stays within noise of the baseline's (a shared, busy machine: generous).
    expect(median(during)).toBeLessThan(median(before) * 3 + 50);
    const counts = await spanCounts(t);
    // At most the queue and the one batch in flight are held; every other span ended since is dropped, and counted.
    const ended = 40 * SPANS_PER_CALL;
    expect(counts.dropped).toBeGreaterThanOrEqual(ended - QUEUE - BATCH);
    // Nothing failed either: the export in flight is still waiting (OTEL_BSP_EXPORT_TIMEOUT).
    expect(counts.failed ?? 0).toBe(0);
  });

  it('shuts down without waiting for the collector', async () => {
    const started = performance.now();
    await t.close();
    expect(performance.now() - started).toBeLessThan(8000);
  });
});

describe('telemetry: a collector that is not there', () => {
  let t: TestApp;

  beforeAll(async () => {
    // A port that was free a moment ago: nothing listens there, connections are refused.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    t = await createTestApp(otelEnv(`http://127.0.0.1:${port}`, { OTEL_EXPORTER_OTLP_TIMEOUT: '300', OTEL_METRIC_EXPORT_INTERVAL: '100' }));
  });
  afterAll(() => t?.close());

  it('answers every call, and counts the spans it could not export', async () => {
    const p = await createProject(t);
    const slug = uniqueSlug('no-collector');
    await deploy(t, p, { slug });
    await calls(t, p, slug, 5);
    const deadline = Date.now() + 20_000;
    let counts = await spanCounts(t);
    while (!(counts.failed >= 5 * SPANS_PER_CALL) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      counts = await spanCounts(t);
    }
    expect(counts.failed).toBeGreaterThanOrEqual(5 * SPANS_PER_CALL);
    expect(counts.exported).toBe(0);
  });
});
