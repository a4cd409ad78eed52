import OpenAI from 'openai';

import { FakeUpstream, openaiChunks, openaiStream, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import {
  addProviderCredential,
  awayFromMinuteBoundary,
  deploy,
  INVOKE_APP_ENV,
  invokePath,
  listen,
  requestLogRows,
} from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/** Issue 13 item 4: per-key and per-project limits on invokes (docs/security.md, "Limits"). */
describe('limits', () => {
  let t: TestApp;
  let fake: FakeUpstream;
  const admin = { 'X-API-Key': TEST_ADMIN_KEY };
  const hello = { messages: [{ role: 'user', content: 'hello there' }] };

  const keyLimits = (p: TestProject, keyId: string) => `/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys/${keyId}/limits`;
  const projectLimits = (p: TestProject) => `/v2/workspaces/${p.workspace}/projects/${p.project}/limits`;
  const invoke = (p: TestProject, slug: string, body: object = hello, key = p.key) =>
    t.http().post(invokePath(p, slug)).set('X-API-Key', key).send(body);

  async function projectWithPrompt(): Promise<TestProject> {
    const p = await createProject(t);
    await deploy(t, p, { slug: 'limited' });
    return p;
  }

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    t = await createTestApp(INVOKE_APP_ENV);
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  describe('admin API', () => {
    it("sets, reads and removes a key's limits; the default for keys applies where the key has none", async () => {
      const p = await createProject(t);
      const put = await t.http().put(keyLimits(p, p.keyId)).set(admin).send({ requestsPerMinute: 10, concurrentInvokes: null });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({
        object: 'api_key.limits',
        keyId: p.keyId,
        limits: { requestsPerMinute: 10, concurrentInvokes: null, tokensPerDay: null, budgetUsdPerDay: null, budgetUsdPerMonth: null },
        effective: { requestsPerMinute: 10, concurrentInvokes: null, tokensPerDay: null, budgetUsdPerDay: null, budgetUsdPerMonth: null },
      });
      await t
        .http()
        .put(projectLimits(p))
        .set(admin)
        .send({ project: { tokensPerDay: 1000 }, keys: { requestsPerMinute: 5, concurrentInvokes: 2 } })
        .expect(200);
      const key = await t.http().get(keyLimits(p, p.keyId)).set(admin).expect(200);
      expect(key.body.effective).toEqual({
        requestsPerMinute: 10,
        concurrentInvokes: 2,
        tokensPerDay: null,
        budgetUsdPerDay: null,
        budgetUsdPerMonth: null,
      });
      const project = await t.http().get(projectLimits(p)).set(admin).expect(200);
      expect(project.body).toEqual({
        object: 'project.limits',
        project: { requestsPerMinute: null, concurrentInvokes: null, tokensPerDay: 1000, budgetUsdPerDay: null, budgetUsdPerMonth: null },
        keys: { requestsPerMinute: 5, concurrentInvokes: 2, tokensPerDay: null, budgetUsdPerDay: null, budgetUsdPerMonth: null },
        perKey: [
          {
            keyId: p.keyId,
            requestsPerMinute: 10,
            concurrentInvokes: null,
            tokensPerDay: null,
            budgetUsdPerDay: null,
            budgetUsdPerMonth: null,
          },
        ],
      });
      await t.http().put(keyLimits(p, p.keyId)).set(admin).send({}).expect(200);
      const rows = await t.dataSource.query('SELECT subject FROM limit_settings WHERE project_id = $1 ORDER BY subject', [p.projectId]);
      expect(rows).toEqual([{ subject: 'keys' }, { subject: 'project' }]);
    });

    it('refuses limits that are not whole numbers of at least 1, and unknown fields', async () => {
      const p = await createProject(t);
      for (const body of [
        { requestsPerMinute: 0 },
        { requestsPerMinute: -1 },
        { requestsPerMinute: 1.5 },
        { tokensPerDay: 'many' },
        { rpm: 5 },
        { project: 'x' },
      ]) {
        const path = 'project' in body ? projectLimits(p) : keyLimits(p, p.keyId);
        const res = await t.http().put(path).set(admin).send(body);
        expect(res.status).toBe(400);
        expect(res.body.error.message).toBe('Invalid request body');
      }
      expect(await t.dataSource.query('SELECT * FROM limit_settings WHERE project_id = $1', [p.projectId])).toEqual([]);
    });

    it('answers 404 for a key of another project, and needs the admin key', async () => {
      const p = await createProject(t);
      const other = await createProject(t);
      const res = await t.http().put(keyLimits(p, other.keyId)).set(admin).send({ requestsPerMinute: 1 });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { message: 'API key not found' } });
      expect((await t.http().put(keyLimits(p, p.keyId)).set('X-API-Key', p.key).send({ requestsPerMinute: 1 })).status).toBe(403);
    });
  });

  it("answers 429 with Retry-After and x-ratelimit-* past a key's requests per minute, and logs the refusal", async () => {
    const p = await projectWithPrompt();
    await t.http().put(keyLimits(p, p.keyId)).set(admin).send({ requestsPerMinute: 3 }).expect(200);
    await awayFromMinuteBoundary();
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const ok = await invoke(p, 'limited');
      expect(ok.status).toBe(200);
      expect(ok.headers['x-ratelimit-limit']).toBe('3');
      remaining.push(ok.headers['x-ratelimit-remaining']);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const refused = await invoke(p, 'limited');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Too Many Requests', message: 'Rate limit reached: 3 requests per minute for this API key' });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(refused.headers['x-ratelimit-reset'])).toBe(retryAfter);
    const logs = await requestLogRows(t, p.projectId);
    expect(logs.map((l) => l.status).sort()).toEqual([200, 200, 200, 429]);
    expect(logs.find((l) => l.status === 429)!.error).toBe('Rate limit reached: 3 requests per minute for this API key');
    // Another key of the same project has its own budget.
    const second = await t
      .http()
      .post(`/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`)
      .set(admin)
      .send({ name: 'second' })
      .expect(200);
    expect((await invoke(p, 'limited', hello, second.body.key)).status).toBe(200);
  });

  it("holds a project's requests per minute across its keys", async () => {
    const p = await projectWithPrompt();
    await t
      .http()
      .put(projectLimits(p))
      .set(admin)
      .send({ project: { requestsPerMinute: 2 } })
      .expect(200);
    await awayFromMinuteBoundary();
    const second = await t
      .http()
      .post(`/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`)
      .set(admin)
      .send({ name: 'second' })
      .expect(200);
    expect((await invoke(p, 'limited')).status).toBe(200);
    expect((await invoke(p, 'limited', hello, second.body.key)).status).toBe(200);
    const refused = await invoke(p, 'limited', hello, second.body.key);
    expect(refused.status).toBe(429);
    expect(refused.body.message).toBe('Rate limit reached: 2 requests per minute for this project');
  });

  it('refuses a second concurrent invoke past concurrentInvokes, and lets one through once the first has ended', async () => {
    const p = await createProject(t);
    await addProviderCredential(t, p, { name: 'slow', type: 'openai', baseUrl: fake.url });
    await deploy(t, p, { slug: 'slow', provider: 'slow', model: 'gpt-fake' });
    await t.http().put(keyLimits(p, p.keyId)).set(admin).send({ concurrentInvokes: 1 }).expect(200);
    const baseUrl = await listen(t);
    fake.setNext(openaiStream(openaiChunks({ content: ['slow', ' answer'] }), { delayMs: 300 }));
    const first = fetch(`${baseUrl}${invokePath(p, 'slow')}`, {
      method: 'POST',
      headers: { 'X-API-Key': p.key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...hello, stream: true }),
    });
    await fake.waitForRequests(fake.requests.length + 1);
    const refused = await invoke(p, 'slow');
    expect(refused.status).toBe(429);
    expect(refused.body.message).toBe('Concurrency limit reached: 1 invokes at a time for this API key');
    expect(refused.headers['retry-after']).toBe('1');
    const streamed = await first;
    expect(await streamed.text()).toContain('data: [DONE]');
    expect((await invoke(p, 'slow')).status).toBe(200);
  });

  it('refuses invokes once the tokens of the day reach tokensPerDay', async () => {
    const p = await projectWithPrompt();
    await t.http().put(keyLimits(p, p.keyId)).set(admin).send({ tokensPerDay: 5 }).expect(200);
    const first = await invoke(p, 'limited');
    expect(first.status).toBe(200);
    expect(first.body.usage.total_tokens).toBeGreaterThanOrEqual(5);
    const refused = await invoke(p, 'limited');
    expect(refused.status).toBe(429);
    expect(refused.body.message).toBe('Token limit reached: 5 tokens per day for this API key');
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(86_400);
  });

  it('answers the official SDK on /v1 with a RateLimitError carrying Retry-After', async () => {
    const p = await projectWithPrompt();
    await t.http().put(keyLimits(p, p.keyId)).set(admin).send({ requestsPerMinute: 1 }).expect(200);
    await awayFromMinuteBoundary();
    const client = new OpenAI({ baseURL: `${await listen(t)}/v1`, apiKey: p.key, maxRetries: 0 });
    const ok = await client.chat.completions.create({ model: 'limited', messages: [{ role: 'user', content: 'hi' }] });
    expect(ok.choices[0].message.content).toBe('hi');
    const refused = await client.chat.completions
      .create({ model: 'limited', messages: [{ role: 'user', content: 'again' }] })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    const error = refused as InstanceType<typeof OpenAI.RateLimitError>;
    expect(error.status).toBe(429);
    expect(Number(error.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(error.error).toMatchObject({ type: 'rate_limit_error', message: 'Rate limit reached: 1 requests per minute for this API key' });
  });

  it('costs nothing to a project without limits: no x-ratelimit headers', async () => {
    const p = await projectWithPrompt();
    const res = await invoke(p, 'limited');
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });

  describe('parley.yaml', () => {
    const file = (p: TestProject) =>
      [
        'workspace: ' + p.workspace,
        'project: ' + p.project,
        'limits:',
        '  project: { requestsPerMinute: 100 }',
        '  keys: { concurrentInvokes: 4, tokensPerDay: 50000 }',
      ].join('\n');

    it("sets a project's limits when applied with the admin key, exports them, and applies again as a no-op", async () => {
      const p = await createProject(t);
      const applied = await t
        .http()
        .post('/v2/apply')
        .set(admin)
        .send({ yaml: file(p) });
      expect(applied.status).toBe(200);
      const limits = await t.http().get(projectLimits(p)).set(admin).expect(200);
      expect(limits.body.project).toEqual({
        requestsPerMinute: 100,
        concurrentInvokes: null,
        tokensPerDay: null,
        budgetUsdPerDay: null,
        budgetUsdPerMonth: null,
      });
      expect(limits.body.keys).toEqual({
        requestsPerMinute: null,
        concurrentInvokes: 4,
        tokensPerDay: 50000,
        budgetUsdPerDay: null,
        budgetUsdPerMonth: null,
      });
      const exported = await t.http().get(`/v2/export?workspace=${p.workspace}&project=${p.project}`).set(admin).expect(200);
      expect(exported.text).toContain('limits:');
      expect(exported.text).toContain('requestsPerMinute: 100');
      const again = await t.http().post('/v2/apply').set(admin).send({ yaml: exported.text }).expect(200);
      expect(again.body.changed).toBe(false);
      expect((await t.http().get(projectLimits(p)).set(admin)).body).toEqual(limits.body);
    });

    it('refuses limits applied with a project key, and rejects bad values with their line', async () => {
      const p = await createProject(t);
      const own = await t
        .http()
        .post('/v2/apply')
        .set('X-API-Key', p.key)
        .send({ yaml: file(p) });
      expect(own.status).toBe(403);
      expect(own.body).toEqual({ error: 'Forbidden', message: 'Limits in parley.yaml can only be applied with the admin key' });
      const bad = await t
        .http()
        .post('/v2/apply')
        .set(admin)
        .send({ yaml: file(p).replace('requestsPerMinute: 100', 'requestsPerMinute: 0') });
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).toContain('limits.project.requestsPerMinute');
      expect(await t.dataSource.query('SELECT * FROM limit_settings WHERE project_id = $1', [p.projectId])).toEqual([]);
    });
  });
});
