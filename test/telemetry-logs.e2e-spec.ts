import { OtlpReceiver, startOtlpReceiver } from './harness/otlp-receiver';
import { createProject, TestProject, uniqueSlug } from './support/factories';
import { Client, client, expectResourceError } from './support/http';
import { deploy, invokePath } from './support/invoke-factories';
import { callerTrace, otelEnv, SERVER } from './support/telemetry-factories';
import { createTestApp, TestApp } from './support/test-app';

interface LogDto {
  id: string;
  traceId: string | null;
  traceUrl: string | null;
}

/**
 * Issue 45: the trace id of each call in its request log (GET /v2/logs, /v2/logs/{id}, ?traceId=,
 * docs/observability.md "Trace ids in request logs"): the caller's traceparent's while the export
 * is off, Parley's own trace while it is on; `traceUrl` from PARLEY_TRACE_URL_TEMPLATE.
 */
describe('telemetry: trace ids in request logs, export off', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let slug: string;

  const invoke = async (traceparent?: string): Promise<string> => {
    const req = t.http().post(invokePath(p, slug)).set('X-API-Key', p.key);
    const res = await (traceparent ? req.set('traceparent', traceparent) : req).send({ messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    return res.headers['x-parley-log-id'];
  };
  const list = async (query: string): Promise<LogDto[]> => (await api.get(`/v2/logs?limit=100&${query}`).expect(200)).body.data;

  beforeAll(async () => {
    t = await createTestApp({});
    p = await createProject(t);
    api = client(t, p.key);
    slug = uniqueSlug('trace-off');
    await deploy(t, p, { slug });
  });
  afterAll(() => t?.close());

  it("records the caller's trace id, and none without a valid traceparent", async () => {
    const caller = callerTrace();
    const traced = await invoke(caller.traceparent);
    const untraced = await invoke();
    const zeros = await invoke(`00-${'0'.repeat(32)}-${'1'.repeat(16)}-01`);
    const reserved = await invoke(`ff-${callerTrace().traceId}-${'1'.repeat(16)}-01`);
    const garbage = await invoke('not-a-traceparent');
    const detail = (await api.get(`/v2/logs/${traced}`).expect(200)).body as LogDto;
    expect(detail).toMatchObject({ traceId: caller.traceId, traceUrl: null });
    for (const id of [untraced, zeros, reserved, garbage]) expect((await api.get(`/v2/logs/${id}`).expect(200)).body.traceId).toBeNull();
    const listed = await list(`slug=${slug}`);
    expect(listed.find((l) => l.id === traced)?.traceId).toBe(caller.traceId);
  });

  it('?traceId= lists the calls of one trace (any case), nothing of another project; a bad id is a 400', async () => {
    const caller = callerTrace();
    const ids = [await invoke(caller.traceparent), await invoke(caller.traceparent)];
    await invoke(callerTrace().traceparent);
    expect((await list(`traceId=${caller.traceId}`)).map((l) => l.id).sort()).toEqual(ids.sort());
    expect((await list(`traceId=${caller.traceId.toUpperCase()}`)).length).toBe(2);
    const other = await createProject(t);
    expect((await client(t, other.key).get(`/v2/logs?traceId=${caller.traceId}`).expect(200)).body.data).toEqual([]);
    for (const bad of ['abc', 'g'.repeat(32), '0'.repeat(33), '%00']) {
      expectResourceError(await api.get(`/v2/logs?traceId=${bad}`), 400, 'Invalid request parameters');
    }
  });

  it('the filter pages on a partial keyset index leading with project_id', async () => {
    const [index] = await t.dataSource.query(
      "SELECT indexdef FROM pg_indexes WHERE tablename = 'request_logs' AND indexname = 'request_logs_trace_idx'",
    );
    expect(index.indexdef).toMatch(/USING btree \(project_id, trace_id, id\) WHERE \(trace_id IS NOT NULL\)/);
    // The list's query with the filter, as the repository runs it: an index scan on that index, whatever the table's size.
    const runner = t.dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
      await runner.query('SET LOCAL enable_seqscan = off');
      const plan = (
        await runner.query('EXPLAIN SELECT id FROM request_logs WHERE project_id = $1 AND trace_id = $2 ORDER BY id DESC LIMIT 51', [
          p.projectId,
          callerTrace().traceId,
        ])
      )
        .map((row: Record<string, string>) => row['QUERY PLAN'])
        .join('\n');
      expect(plan).toMatch(/Index (Only )?Scan( Backward)? using \S*trace\S* on/);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });
});

describe('telemetry: trace ids in request logs, export on', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let otlp: OtlpReceiver;

  beforeAll(async () => {
    otlp = await startOtlpReceiver('http');
    t = await createTestApp(otelEnv(otlp.endpoint, { PARLEY_TRACE_URL_TEMPLATE: 'http://localhost:16686/trace/{traceId}' }));
    p = await createProject(t);
    api = client(t, p.key);
  });
  afterAll(async () => {
    await t?.close();
    await otlp?.close();
  });

  it("a call without a traceparent gets Parley's own trace: the log names it, with the viewer's link", async () => {
    const slug = uniqueSlug('trace-on');
    await deploy(t, p, { slug });
    const res = await api.post(invokePath(p, slug), { messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    const log = (await api.get(`/v2/logs/${res.headers['x-parley-log-id']}`).expect(200)).body as LogDto;
    expect(log.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(log.traceUrl).toBe(`http://localhost:16686/trace/${log.traceId}`);
    const [server] = await otlp.waitForSpans(
      (all) => all.filter((s) => s.traceId === log.traceId && s.kind === SERVER),
      (found) => found.length === 1,
    );
    expect(server.parentSpanId).toBe('');
    expect((await api.get(`/v2/logs?traceId=${log.traceId}`).expect(200)).body.data).toEqual([
      expect.objectContaining({ id: log.id, traceUrl: log.traceUrl }),
    ]);
  });
});
