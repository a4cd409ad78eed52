import OpenAI, { BadRequestError } from 'openai';

import { ResponseCache } from '../src/response-cache/response-cache.service';
import { FakeUpstream, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, deploy, INVOKE_APP_ENV, invokePath, listen, requestLogRows, sleep } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/**
 * Issue 43 item 5: when the exact response cache (docs/routing.md, "Response cache") does not
 * answer: another request, another project, an expired entry, the per-call switch, doNotRecord.
 */
describe('response cache: misses, the per-call switch and doNotRecord', () => {
  let t: TestApp;
  let p: TestProject;
  let other: TestProject;
  let fake: FakeUpstream;
  let openai: OpenAI;

  const user = (content: string) => ({ role: 'user' as const, content });
  const cacheRowCount = async (projectId: string): Promise<number> =>
    Number((await t.dataSource.query('SELECT count(*) AS n FROM response_cache WHERE project_id = $1', [projectId]))[0].n);
  const invoke = (project: TestProject, slug: string, body: object, headers: Record<string, string> = {}) =>
    t
      .http()
      .post(invokePath(project, slug))
      .set({ 'X-API-Key': project.key, ...headers })
      .send(body);
  /** Calls `call` and answers how many upstream requests it made. */
  const upstreamCalls = async (call: () => Promise<unknown>): Promise<number> => {
    const before = fake.requests.length;
    await call();
    return fake.requests.length - before;
  };

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    t = await createTestApp(INVOKE_APP_ENV);
    const baseUrl = await listen(t);
    p = await createProject(t);
    other = await createProject(t);
    openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: p.key, maxRetries: 0 });
    for (const project of [p, other]) {
      await addProviderCredential(t, project, { name: 'upstream', type: 'openai', baseUrl: fake.url, apiKey: 'sk-up' });
      const template = [{ role: 'system', content: 'Be {{tone}}.' }];
      await deploy(t, project, {
        slug: 'cached',
        provider: 'upstream',
        model: 'gpt-c',
        template,
        variables: { tone: 'brief' },
        cache: { ttlSeconds: 600 },
      });
      await deploy(t, project, { slug: 'plain', provider: 'upstream', model: 'gpt-c' });
    }
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('another variable or parameter is another request: a miss', async () => {
    const body = { variables: { tone: 'warm' }, messages: [user('vary me')] };
    expect(await upstreamCalls(() => invoke(p, 'cached', body).expect(200))).toBe(1);
    expect(await upstreamCalls(() => invoke(p, 'cached', body).expect(200))).toBe(0);
    const otherVariable = await invoke(p, 'cached', { ...body, variables: { tone: 'cold' } }).expect(200);
    expect(otherVariable.headers['x-parley-cache']).toBe('miss');
    expect(await upstreamCalls(() => invoke(p, 'cached', { ...body, temperature: 0.9 }).expect(200))).toBe(1);
    expect(await upstreamCalls(() => invoke(p, 'cached', { ...body, messages: [user('vary me!')] }).expect(200))).toBe(1);
    // Metadata is not part of the request the model sees: still a hit.
    const tagged = await invoke(p, 'cached', { ...body, metadata: { team: 'a' } }).expect(200);
    expect(tagged.headers['x-parley-cache']).toBe('hit');
  });

  it('never crosses projects', async () => {
    const body = { messages: [user('one project only')] };
    await invoke(p, 'cached', body).expect(200);
    expect((await invoke(p, 'cached', body).expect(200)).headers['x-parley-cache']).toBe('hit');
    const elsewhere = await invoke(other, 'cached', body).expect(200);
    expect(elsewhere.headers['x-parley-cache']).toBe('miss');
    expect(await requestLogRows(t, other.projectId).then((rows) => rows.at(-1)!.cache_hit)).toBe(false);
  });

  it('x-parley-cache-ttl enables the cache for a call on a version without one; an expired entry is a miss, then swept', async () => {
    const body = { messages: [user('per call')] };
    const ttl = { 'x-parley-cache-ttl': '1' };
    expect((await invoke(p, 'plain', body, ttl).expect(200)).headers['x-parley-cache']).toBe('miss');
    expect(await upstreamCalls(() => invoke(p, 'plain', body, ttl).expect(200))).toBe(0);
    // Without the header the version has no cache: no lookup, no header.
    const uncached = await invoke(p, 'plain', body).expect(200);
    expect(uncached.headers['x-parley-cache']).toBeUndefined();
    await sleep(1100);
    expect((await invoke(p, 'plain', body, ttl).expect(200)).headers['x-parley-cache']).toBe('miss');
    await sleep(1100);
    const expired = () =>
      t.dataSource.query('SELECT count(*) AS n FROM response_cache WHERE project_id = $1 AND expires_at <= now()', [p.projectId]);
    expect(Number((await expired())[0].n)).toBeGreaterThan(0);
    await t.app.get(ResponseCache).sweep();
    expect(Number((await expired())[0].n)).toBe(0);
  });

  it("a call's TTL is the oldest answer it accepts", async () => {
    const body = { messages: [user('how old')] };
    await invoke(p, 'cached', body).expect(200);
    await sleep(1100);
    expect((await invoke(p, 'cached', body, { 'x-parley-cache-ttl': '1' }).expect(200)).headers['x-parley-cache']).toBe('miss');
    expect((await invoke(p, 'cached', body).expect(200)).headers['x-parley-cache']).toBe('hit');
  });

  it("x-parley-cache-ttl: 0 bypasses the version's cache: neither served nor stored", async () => {
    const body = { messages: [user('bypass')] };
    const rows = await cacheRowCount(p.projectId);
    const bypassed = await invoke(p, 'cached', body, { 'x-parley-cache-ttl': '0' }).expect(200);
    expect(bypassed.headers['x-parley-cache']).toBeUndefined();
    expect(await cacheRowCount(p.projectId)).toBe(rows);
    await invoke(p, 'cached', body).expect(200);
    expect(await upstreamCalls(() => invoke(p, 'cached', body, { 'x-parley-cache-ttl': '0' }).expect(200))).toBe(1);
  });

  it('doNotRecord is never stored nor served, in the body or as a header, on every surface', async () => {
    const rows = await cacheRowCount(p.projectId);
    const body = { messages: [user('secret')], doNotRecord: true };
    expect(await upstreamCalls(() => invoke(p, 'cached', body).expect(200))).toBe(1);
    const again = await invoke(p, 'cached', body).expect(200);
    expect(again.headers['x-parley-cache']).toBeUndefined();
    const header = { 'x-parley-do-not-record': 'true', 'x-parley-cache-ttl': '600' };
    expect(await upstreamCalls(() => invoke(p, 'cached', { messages: [user('secret')] }, header).expect(200))).toBe(1);
    const sdk = () => openai.chat.completions.create({ model: 'cached', messages: [user('secret v1')] }, { headers: header });
    expect(await upstreamCalls(sdk)).toBe(1);
    expect(await upstreamCalls(sdk)).toBe(1);
    expect(await cacheRowCount(p.projectId)).toBe(rows);
    // A stored answer is not served to a doNotRecord call of the same request either.
    await invoke(p, 'cached', { messages: [user('stored first')] }).expect(200);
    expect(await upstreamCalls(() => invoke(p, 'cached', { messages: [user('stored first')], doNotRecord: true }).expect(200))).toBe(1);
    const logs = await requestLogRows(t, p.projectId);
    expect(logs.filter((log) => log.do_not_record && log.cache_hit)).toEqual([]);
  });

  it('a failure is not stored', async () => {
    const rows = await cacheRowCount(p.projectId);
    fake.setNext({ type: 'json', status: 400, body: { error: { message: 'bad', type: 'invalid_request_error' } } });
    expect((await invoke(p, 'cached', { messages: [user('fails')] })).status).toBeGreaterThanOrEqual(400);
    expect(await cacheRowCount(p.projectId)).toBe(rows);
    expect((await invoke(p, 'cached', { messages: [user('fails')] }).expect(200)).headers['x-parley-cache']).toBe('miss');
  });

  it('a malformed x-parley-cache-ttl is a 400 in the surface’s shape', async () => {
    const res = await invoke(p, 'cached', { messages: [user('x')] }, { 'x-parley-cache-ttl': 'soon' }).expect(400);
    expect(res.body).toEqual({ error: 'Bad Request', message: 'x-parley-cache-ttl must be a whole number of seconds from 0 to 2592000' });
    const call = openai.chat.completions.create({ model: 'cached', messages: [user('x')] }, { headers: { 'x-parley-cache-ttl': '-1' } });
    await expect(call).rejects.toBeInstanceOf(BadRequestError);
    await expect(call).rejects.toMatchObject({ param: 'x-parley-cache-ttl' });
    await invoke(p, 'cached', { messages: [user('x')] }, { 'x-parley-cache-ttl': '2592001' }).expect(400);
  });
});
