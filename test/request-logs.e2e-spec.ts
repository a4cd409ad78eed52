import { FakeUpstream, openaiError, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { Client, client, expectResourceError } from './support/http';
import { addProviderCredential, deploy, INVOKE_APP_ENV, invokePath, sleep } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

interface LogDto {
  id: string;
  promptSlug: string;
  environment: string;
  threadId: string | null;
  status: number;
  metadata: string;
  startedAt: string;
}

/** GET /v2/logs and /v2/logs/{id}: one log per invoke that reached a provider, filtered and paginated. */
describe('request logs', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let fake: FakeUpstream;
  let threadId: string;
  let mid: string;
  let all: LogDto[];

  const ids = (logs: LogDto[]) => logs.map((l) => l.id);
  const list = async (query: string): Promise<LogDto[]> => (await api.get(`/v2/logs?limit=100&${query}`).expect(200)).body.data;

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    t = await createTestApp({ ...INVOKE_APP_ENV, PROVIDER_MAX_RETRIES: '0' });
    p = await createProject(t);
    api = client(t, p.key);
    await addProviderCredential(t, p, { name: 'upstream', type: 'openai', baseUrl: fake.url, apiKey: 'sk-l' });
    await deploy(t, p, { slug: 'alpha', environments: ['production', 'staging'] });
    await deploy(t, p, { slug: 'beta', kind: 'assistant' });
    await deploy(t, p, { slug: 'remote', provider: 'upstream', model: 'gpt-l' });

    await api.post(invokePath(p, 'alpha'), { metadata: { customer: 'c1' } }).expect(200);
    await api.post(invokePath(p, 'alpha'), { metadata: { customer: 'c1' } }).expect(200);
    await api.post(invokePath(p, 'alpha', 'staging'), { metadata: { customer: 'c2', n: 5 } }).expect(200);
    await sleep(30);
    mid = new Date().toISOString();
    await sleep(30);
    // Behind the load balancer (a loopback proxy here), the client address comes from X-Forwarded-For.
    const first = await api
      .post(invokePath(p, 'beta'), { messages: [{ role: 'user', content: 'hi' }] })
      .set('X-Forwarded-For', '203.0.113.9')
      .expect(200);
    threadId = first.headers['x-parley-thread-id'];
    await api.post(invokePath(p, 'beta'), { threadId, messages: [{ role: 'user', content: 'again' }] }).expect(200);
    await api.post(invokePath(p, 'alpha'), { model: 'no-such-model' }).expect(400);
    fake.setNext(openaiError(500, 'boom'));
    await api.post(invokePath(p, 'remote'), {}).expect(502);
    all = await list('');
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('lists every invoke newest first, in the list envelope', async () => {
    const res = await api.get('/v2/logs').expect(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'first_id', 'has_more', 'last_id', 'object']);
    expect(res.body).toMatchObject({ object: 'list', has_more: false, first_id: all[0].id, last_id: all[6].id });
    expect(all.map((l) => [l.promptSlug, l.environment, l.status])).toEqual([
      ['remote', 'production', 502],
      ['alpha', 'production', 400],
      ['beta', 'production', 200],
      ['beta', 'production', 200],
      ['alpha', 'staging', 200],
      ['alpha', 'production', 200],
      ['alpha', 'production', 200],
    ]);
    expect(ids(all)).toEqual([...ids(all)].sort().reverse());
    expect(ids(await list('order=asc'))).toEqual([...ids(all)].reverse());
  });

  it('filters by slug, environment, thread, status, time range and metadata, combined with AND', async () => {
    expect(await list('slug=alpha')).toEqual(all.filter((l) => l.promptSlug === 'alpha'));
    expect(ids(await list('environment=staging'))).toEqual([all[4].id]);
    expect(ids(await list(`threadId=${threadId}`))).toEqual([all[2].id, all[3].id]);
    expect(await list('threadId=not-a-uuid')).toEqual([]);
    expect(ids(await list('status=success'))).toEqual(ids(all.slice(2)));
    expect(ids(await list('status=error'))).toEqual([all[0].id, all[1].id]);
    expect(ids(await list('status=502'))).toEqual([all[0].id]);
    expect(ids(await list('status=400&slug=alpha'))).toEqual([all[1].id]);
    expect(ids(await list(`from=${mid}`))).toEqual(ids(all.slice(0, 4)));
    expect(ids(await list(`to=${mid}`))).toEqual(ids(all.slice(4)));
    expect(ids(await list(`from=${mid}&slug=alpha`))).toEqual([all[1].id]);
    expect(ids(await list('metadata=customer:c1'))).toEqual([all[5].id, all[6].id]);
    expect(ids(await list('metadata=n:5'))).toEqual([all[4].id]);
    expect(await list('metadata=customer:nobody')).toEqual([]);
    expect(await list('slug=alpha&environment=staging&status=error')).toEqual([]);
  });

  it('pages with limit and after = the last id, also under a filter', async () => {
    const seen: string[] = [];
    let after = '';
    for (let page = 0; page < 10; page++) {
      const res = await api.get(`/v2/logs?limit=3${after ? `&after=${after}` : ''}`).expect(200);
      seen.push(...ids(res.body.data));
      expect(res.body.first_id).toBe(res.body.data[0].id);
      expect(res.body.last_id).toBe(res.body.data[res.body.data.length - 1].id);
      if (!res.body.has_more) break;
      after = res.body.last_id;
    }
    expect(seen).toEqual(ids(all));
    const filtered = await api.get('/v2/logs?slug=alpha&limit=2').expect(200);
    expect(filtered.body.has_more).toBe(true);
    const next = await api.get(`/v2/logs?slug=alpha&limit=2&after=${filtered.body.last_id}`).expect(200);
    expect([...ids(filtered.body.data), ...ids(next.body.data)]).toEqual(ids(all.filter((l) => l.promptSlug === 'alpha')));
    expect(next.body.has_more).toBe(false);
  });

  it('gets one log by id with the spec fields and the operational ones', async () => {
    const failed = await api.get(`/v2/logs/${all[0].id}`).expect(200);
    expect(Object.keys(failed.body).sort()).toEqual(
      [
        'id',
        'url',
        'metadata',
        'promptId',
        'threadId',
        'projectId',
        'requestIP',
        'variables',
        'parameters',
        'promptSlug',
        'environment',
        'providerKeyId',
        'projectSlug',
        'requestData',
        'deploymentId',
        'organizationId',
        'projectAPIKeyId',
        'organizationSlug',
        'deploymentVersion',
        'promptHistoryHash',
        'providerOrganization',
        'stream',
        'assistant',
        'doNotRecord',
        'startedAt',
        'kind',
        'version',
        'provider',
        'model',
        'status',
        'error',
        'latencyMs',
        'timeToFirstTokenMs',
        'usage',
        'costUsd',
        'priceRef',
        'cacheHit',
        'traceId',
        'traceUrl',
        'attempts',
        'request',
        'response',
        'threadMessageIds',
      ].sort(),
    );
    // A failed call: no response, no thread messages (test/request-log-detail.e2e-spec.ts has the rest).
    expect(failed.body).toMatchObject({ response: null, threadMessageIds: [], traceId: null, traceUrl: null });
    expect(failed.body).toMatchObject({
      promptSlug: 'remote',
      kind: 'prompt',
      assistant: false,
      provider: 'upstream',
      model: 'gpt-l',
      status: 502,
      error: 'openai upstream answered 500: boom',
      providerKeyId: expect.any(String),
      usage: { prompt_tokens: null, completion_tokens: null, total_tokens: null },
      cacheHit: false,
      // Not routed: one attempt, not listed (docs/routing.md, "Every attempt recorded").
      attempts: null,
    });
    const viaProxy = await api.get(`/v2/logs/${all[3].id}`).expect(200);
    expect(viaProxy.body).toMatchObject({ requestIP: '203.0.113.9', url: invokePath(p, 'beta'), assistant: true, threadId });
    const ok = await api.get(`/v2/logs/${all[6].id}`).expect(200);
    expect(ok.body).toMatchObject({
      status: 200,
      error: null,
      provider: 'local',
      model: 'echo',
      metadata: '{"customer":"c1"}',
      version: 1,
    });
    expect(ok.body.usage.total_tokens).toBe(ok.body.usage.prompt_tokens + ok.body.usage.completion_tokens);
    expect(ok.body.latencyMs).toEqual(expect.any(Number));
  });

  it("keeps each project's logs to itself: another project's log is not found, its list is empty", async () => {
    const other = await createProject(t);
    const otherApi = client(t, other.key);
    expectResourceError(await otherApi.get(`/v2/logs/${all[0].id}`), 404, 'Request log not found');
    expectResourceError(await api.get('/v2/logs/not-a-uuid'), 404, 'Request log not found');
    expectResourceError(await api.get('/v2/logs/01900000-0000-7000-8000-000000000000'), 404, 'Request log not found');
    expect((await otherApi.get('/v2/logs').expect(200)).body.data).toEqual([]);
    expect((await otherApi.get(`/v2/logs?threadId=${threadId}`).expect(200)).body.data).toEqual([]);
  });

  it('answers a filter no log can match (a slug of another shape, a thread id that is no UUID) with an empty page, never a 500', async () => {
    for (const query of ['slug=Alpha', 'environment=a%20b', 'threadId=nope']) {
      expect([query, (await api.get(`/v2/logs?${query}`).expect(200)).body]).toEqual([
        query,
        { object: 'list', data: [], has_more: false, first_id: null, last_id: null },
      ]);
    }
  });

  it('refuses a filter holding U+0000 (text no log can hold, nor PostgreSQL compare) with 400 naming it', async () => {
    for (const [query, name] of [
      ['slug=%00', 'slug'],
      ['environment=a%00b', 'environment'],
      ['metadata=customer:%00', 'metadata'],
      ['metadata=%00:c1', 'metadata'],
      ['threadId=%00', 'threadId'],
    ]) {
      const res = await api.get(`/v2/logs?${query}`);
      expect([query, res.status, res.body.error?.message]).toEqual([query, 400, 'Invalid request parameters']);
      expect(res.body.error.details).toContain(`${name}: must not contain U+0000`);
    }
  });

  it('rejects invalid query parameters with 400 Invalid request parameters', async () => {
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=abc',
      'status=bad',
      'status=20',
      'from=yesterday',
      'to=2024-13-01',
      'order=up',
      'after=nope',
      'metadata=novalue',
    ]) {
      expectResourceError(await api.get(`/v2/logs?${query}`), 400, 'Invalid request parameters');
    }
  });
});
