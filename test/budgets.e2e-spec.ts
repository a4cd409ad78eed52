import OpenAI, { RateLimitError } from 'openai';

import { FakeUpstream, openaiChunks, openaiCompletion, openaiJson, openaiStream } from './fakes/fake-openai-upstream';
import { startFakeUpstream } from './fakes/fake-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, INVOKE_APP_ENV, listen, requestLogRows, sleep } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

const DAY_HEADER = 'x-parley-budget-remaining-usd-day';
const MONTH_HEADER = 'x-parley-budget-remaining-usd-month';
/** 600 + 400 tokens at 10 USD per million: every priced call costs exactly 0.01 USD. */
const USAGE = { prompt_tokens: 600, completion_tokens: 400 };
const PRICE = { provider: 'oai', model: 'budget-model', inputPerMTok: 10, outputPerMTok: 10 };

/** Issue 18 item 5: budgets in USD per key and project, per UTC day and month (docs/usage.md, "Budgets"). */
describe('budgets', () => {
  let t: TestApp;
  let fake: FakeUpstream;
  let baseUrl: string;
  const admin = { 'X-API-Key': TEST_ADMIN_KEY };
  const base = (p: TestProject) => `/v2/workspaces/${p.workspace}/projects/${p.project}`;
  const chat = (key: string, model = 'oai/budget-model') =>
    t
      .http()
      .post('/v1/chat/completions')
      .set('Authorization', `Bearer ${key}`)
      .send({ model, messages: [{ role: 'user', content: 'hi' }] });

  /** A project whose provider `oai` answers every call with USAGE, and `oai/budget-model` priced by an override. */
  async function pricedProject(): Promise<TestProject & { otherKey: string; otherKeyId: string }> {
    const p = await createProject(t);
    await addProviderCredential(t, p, { name: 'oai', type: 'openai', baseUrl: fake.url, apiKey: 'sk-up' });
    await t
      .http()
      .put(`${base(p)}/prices`)
      .set(admin)
      .send({ prices: [PRICE] })
      .expect(200);
    const other = await t
      .http()
      .post(`${base(p)}/api-keys`)
      .set(admin)
      .send({ name: 'other' })
      .expect(200);
    return { ...p, otherKey: other.body.key, otherKeyId: other.body.id };
  }

  const nextUtcMidnight = () => {
    const now = new Date();
    return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();
  };
  const nextMonth = () => {
    const now = new Date();
    return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
  };

  beforeAll(async () => {
    fake = await startFakeUpstream((req) =>
      openaiJson(openaiCompletion({ content: 'ok', model: (req.body as { model: string }).model, usage: USAGE })),
    );
    t = await createTestApp(INVOKE_APP_ENV);
    baseUrl = await listen(t);
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it("charges a key's daily budget with each call's logged cost, tells what is left, then answers 429; another key keeps working", async () => {
    const p = await pricedProject();
    const set = await t
      .http()
      .put(`${base(p)}/api-keys/${p.keyId}/limits`)
      .set(admin)
      .send({ budgetUsdPerDay: 0.05 })
      .expect(200);
    expect(set.body.limits).toMatchObject({ budgetUsdPerDay: 0.05, budgetUsdPerMonth: null });

    const remaining: string[] = [];
    let refused;
    for (let i = 0; i < 10 && !refused; i++) {
      const res = await chat(p.key);
      if (res.status === 429) refused = res;
      else {
        expect(res.status).toBe(200);
        remaining.push(res.headers[DAY_HEADER]);
        expect(res.headers[MONTH_HEADER]).toBeUndefined();
      }
    }
    // 0.05 USD at 0.01 a call: five calls, each reserving the cost of the one before it.
    expect(remaining).toEqual(['0.05', '0.03', '0.02', '0.01', '0']);
    expect(refused!.body).toEqual({
      error: {
        message: 'Budget exhausted: 0.05 USD per day for this API key',
        type: 'insufficient_quota',
        param: null,
        code: 'insufficient_quota',
      },
    });
    expect(refused!.headers['x-should-retry']).toBe('false');
    expect(refused!.headers[DAY_HEADER]).toBe('0');
    const retryAfter = Number(refused!.headers['retry-after']);
    expect(Math.abs(Date.now() + retryAfter * 1000 - Date.parse(nextUtcMidnight()))).toBeLessThan(5000);

    // What was charged is what the logs store; the refusal is logged too, with no cost.
    const logs = await requestLogRows(t, p.projectId);
    expect(logs.filter((l) => l.status === 200).map((l) => l.cost_usd)).toEqual(['0.01', '0.01', '0.01', '0.01', '0.01']);
    expect(logs.filter((l) => l.status === 429)).toEqual([
      expect.objectContaining({ api_key_id: p.keyId, cost_usd: null, error: 'Budget exhausted: 0.05 USD per day for this API key' }),
    ]);

    // The other key has no budget of its own: it keeps working, without budget headers.
    const other = await chat(p.otherKey);
    expect(other.status).toBe(200);
    expect(other.headers[DAY_HEADER]).toBeUndefined();

    const keyState = await t
      .http()
      .get(`${base(p)}/api-keys/${p.keyId}/budget`)
      .set(admin)
      .expect(200);
    expect(keyState.body).toEqual({
      object: 'api_key.budget',
      keyId: p.keyId,
      day: { limitUsd: '0.05', spentUsd: '0.05', remainingUsd: '0', resetsAt: nextUtcMidnight() },
      month: { limitUsd: null, spentUsd: '0.05', remainingUsd: null, resetsAt: nextMonth() },
    });
    const projectState = await t
      .http()
      .get(`${base(p)}/budgets`)
      .set(admin)
      .expect(200);
    expect(projectState.body.object).toBe('project.budgets');
    expect(projectState.body.project.day).toEqual({ limitUsd: null, spentUsd: '0.06', remainingUsd: null, resetsAt: nextUtcMidnight() });
    expect(projectState.body.keys).toEqual(
      expect.arrayContaining([
        { keyId: p.keyId, day: keyState.body.day, month: keyState.body.month },
        {
          keyId: p.otherKeyId,
          day: { limitUsd: null, spentUsd: '0.01', remainingUsd: null, resetsAt: nextUtcMidnight() },
          month: expect.objectContaining({ spentUsd: '0.01' }),
        },
      ]),
    );
    // A project key reads its own project's budgets at /v2/usage/budgets; the admin API's routes stay the admin's.
    const own = await t.http().get('/v2/usage/budgets').set('X-API-Key', p.key).expect(200);
    expect(own.body).toEqual(projectState.body);
    await t
      .http()
      .get(`${base(p)}/budgets`)
      .set('X-API-Key', p.key)
      .expect(403);

    // A raised budget lets the key call again at once (the change notification, as for limits).
    await t
      .http()
      .put(`${base(p)}/api-keys/${p.keyId}/limits`)
      .set(admin)
      .send({ budgetUsdPerDay: 0.07 })
      .expect(200);
    const again = await chat(p.key);
    expect(again.status).toBe(200);
    expect(again.headers[DAY_HEADER]).toBe('0.01');
  });

  it("the openai SDK throws RateLimitError with code insufficient_quota once the project's monthly budget is spent, for every key", async () => {
    const p = await pricedProject();
    await t
      .http()
      .put(`${base(p)}/limits`)
      .set(admin)
      .send({ project: { budgetUsdPerMonth: 0.02 } })
      .expect(200);
    const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: p.key, maxRetries: 0 });
    const first = await client.chat.completions
      .create({ model: 'oai/budget-model', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    expect(first.response.headers.get(MONTH_HEADER)).toBe('0.02');
    await client.chat.completions.create({ model: 'oai/budget-model', messages: [{ role: 'user', content: 'hi' }] });

    const error = await client.chat.completions
      .create({ model: 'oai/budget-model', messages: [{ role: 'user', content: 'hi' }] })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).code).toBe('insufficient_quota');
    expect((error as RateLimitError).type).toBe('insufficient_quota');
    expect((error as RateLimitError).message).toContain('Budget exhausted: 0.02 USD per month for this project');
    // /v1/responses alike.
    const viaResponses = await client.responses.create({ model: 'oai/budget-model', input: 'hi' }).catch((err: unknown) => err);
    expect(viaResponses).toBeInstanceOf(RateLimitError);
    expect((viaResponses as RateLimitError).code).toBe('insufficient_quota');
    // A streamed (stored) response is refused before its stream starts, the same way.
    const streamed = await client.responses.create({ model: 'oai/budget-model', input: 'hi', stream: true }).catch((err: unknown) => err);
    expect(streamed).toBeInstanceOf(RateLimitError);
    expect((streamed as RateLimitError).code).toBe('insufficient_quota');
    // A background response is accepted, then fails with the code.
    const queued = await client.responses.create({ model: 'oai/budget-model', input: 'hi', background: true });
    let settled = queued;
    for (let i = 0; i < 100 && (settled.status === 'queued' || settled.status === 'in_progress'); i++) {
      await sleep(50);
      settled = await client.responses.retrieve(queued.id);
    }
    expect([settled.status, settled.error?.code]).toEqual(['failed', 'insufficient_quota']);
    // The SDK's default retries give up at once: x-should-retry: false.
    const retrying = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: p.otherKey });
    await expect(
      retrying.chat.completions.create({ model: 'oai/budget-model', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 429, code: 'insufficient_quota' });
    // One request reached Parley (each refusal is logged), not three.
    expect((await requestLogRows(t, p.projectId)).filter((l) => l.api_key_id === p.otherKeyId && l.status === 429)).toHaveLength(1);

    // The spec's endpoints answer their own 429 shape.
    await t.http().post('/v2/prompts').set('X-API-Key', p.key).send({ slug: 'capped', kind: 'prompt' }).expect(200);
    const version = await t
      .http()
      .post('/v2/prompts/capped/versions')
      .set('X-API-Key', p.key)
      .send({ template: [{ role: 'system', content: 'x' }], provider: 'oai', model: 'budget-model' })
      .expect(200);
    await t
      .http()
      .post('/v2/prompts/capped/deployments')
      .set('X-API-Key', p.key)
      .send({ environment: 'production', version: version.body.version })
      .expect(200);
    const spec = await t
      .http()
      .post(`/${p.workspace}/${p.project}/capped/production`)
      .set('X-API-Key', p.key)
      .send({ messages: [{ role: 'user', content: 'hi' }] });
    expect(spec.status).toBe(429);
    expect(spec.body).toEqual({ error: 'Too Many Requests', message: 'Budget exhausted: 0.02 USD per month for this project' });
    expect(spec.headers[MONTH_HEADER]).toBe('0');
    expect(fake.requests.filter((r) => r.headers.authorization === 'Bearer sk-up').length).toBeGreaterThan(0);
  });

  it('does not charge unpriced calls (cost null), and the counters hold nano-USD of the logged costs', async () => {
    const p = await pricedProject();
    await t
      .http()
      .put(`${base(p)}/api-keys/${p.keyId}/limits`)
      .set(admin)
      .send({ budgetUsdPerDay: 0.015 })
      .expect(200);
    for (let i = 0; i < 3; i++) expect((await chat(p.key, 'oai/house-model-unpriced')).status).toBe(200);
    const logs = await requestLogRows(t, p.projectId);
    expect(logs.map((l) => l.cost_usd)).toEqual([null, null, null]);
    const state = await t
      .http()
      .get(`${base(p)}/api-keys/${p.keyId}/budget`)
      .set(admin)
      .expect(200);
    expect(state.body.day).toMatchObject({ spentUsd: '0', remainingUsd: '0.015' });
    // Priced: 0.01, then 0.02 (past the budget by less than one call), then refused.
    const priced = [];
    for (let i = 0; i < 3; i++) {
      const res = await chat(p.key);
      priced.push([res.status, res.headers[DAY_HEADER], res.body.error?.message]);
    }
    expect(priced).toEqual([
      [200, '0.015', undefined],
      [200, '0', undefined],
      [429, '0', 'Budget exhausted: 0.015 USD per day for this API key'],
    ]);
    // Shared with the other instances through limit_counters, in nano-USD, once synced (100 ms).
    const dayStart = Math.floor(Date.now() / 86_400_000) * 86_400;
    const shared = async () =>
      (
        await t.dataSource.query(`SELECT count FROM limit_counters WHERE project_id = $1 AND scope = $2 AND window_start = $3`, [
          p.projectId,
          `key:${p.keyId}:usd-day`,
          dayStart,
        ])
      )[0]?.count;
    for (let i = 0; i < 40 && Number(await shared()) !== 20_000_000; i++) await sleep(50);
    expect(Number(await shared())).toBe(20_000_000);
  });

  it('takes budgets in the limits bodies and parley.yaml, exports them, and refuses bad values with a 400', async () => {
    const p = await pricedProject();
    for (const body of [{ budgetUsdPerDay: -1 }, { budgetUsdPerDay: 'ten' }, { budgetUsdPerMonth: 2_000_000 }]) {
      const res = await t
        .http()
        .put(`${base(p)}/api-keys/${p.keyId}/limits`)
        .set(admin)
        .send(body);
      expect(res.status).toBe(400);
    }
    const yaml = [
      'workspace: ' + p.workspace,
      'project: ' + p.project,
      'limits:',
      '  project: { budgetUsdPerMonth: 500 }',
      '  keys: { budgetUsdPerDay: 12.5 }',
    ].join('\n');
    await t.http().post('/v2/apply').set('X-API-Key', p.key).send({ yaml }).expect(403);
    await t.http().post('/v2/apply').set(admin).send({ yaml }).expect(200);
    const limits = await t
      .http()
      .get(`${base(p)}/limits`)
      .set(admin)
      .expect(200);
    expect(limits.body.project).toMatchObject({ budgetUsdPerDay: null, budgetUsdPerMonth: 500 });
    expect(limits.body.keys).toMatchObject({ budgetUsdPerDay: 12.5, budgetUsdPerMonth: null });
    const exported = await t.http().get(`/v2/export?workspace=${p.workspace}&project=${p.project}`).set(admin).expect(200);
    expect(exported.text).toContain('budgetUsdPerMonth: 500');
    expect(exported.text).toContain('budgetUsdPerDay: 12.5');
    // The key without a budget of its own has the default for keys; both show in its answer.
    const state = await t
      .http()
      .get(`${base(p)}/api-keys/${p.keyId}/budget`)
      .set(admin)
      .expect(200);
    expect(state.body.day).toMatchObject({ limitUsd: '12.5', spentUsd: '0', remainingUsd: '12.5' });
    const res = await chat(p.key);
    expect([res.status, res.headers[DAY_HEADER], res.headers[MONTH_HEADER]]).toEqual([200, '12.5', '500']);
  });

  it('a cold key (a new key in a project without recent calls) keeps its budget in a burst: 10 USD at 0.80 a call admits at most 13 of 64', async () => {
    // Streamed answers that take a moment (as a real model's do), so the burst's calls overlap.
    const slow = await startFakeUpstream(() => openaiStream(openaiChunks({ content: ['o', 'k'], usage: USAGE }), { delayMs: 25 }));
    const p = await createProject(t);
    await addProviderCredential(t, p, { name: 'oai', type: 'openai', baseUrl: slow.url, apiKey: 'sk-up' });
    // 600 + 400 tokens at 800 USD per million: 0.80 USD a call.
    await t
      .http()
      .put(`${base(p)}/prices`)
      .set(admin)
      .send({ prices: [{ ...PRICE, inputPerMTok: 800, outputPerMTok: 800 }] })
      .expect(200);
    await t
      .http()
      .put(`${base(p)}/api-keys/${p.keyId}/limits`)
      .set(admin)
      .send({ budgetUsdPerDay: 10 })
      .expect(200);

    const streamed = () =>
      t
        .http()
        .post('/v1/chat/completions')
        .set('Authorization', `Bearer ${p.key}`)
        .send({ model: 'oai/budget-model', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const answers = await Promise.all(Array.from({ length: 64 }, streamed)).finally(() => slow.close());
    const admitted = answers.filter((res) => res.status === 200).length;
    expect(answers.every((res) => res.status === 200 || res.status === 429)).toBe(true);
    expect(admitted).toBeGreaterThanOrEqual(12);
    expect(admitted).toBeLessThanOrEqual(13);
    const spent = (await requestLogRows(t, p.projectId)).reduce((sum, log) => sum + Number(log.cost_usd ?? 0), 0);
    expect(spent).toBeLessThanOrEqual(10.8);
  });
});
