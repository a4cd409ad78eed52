import { calcPrice } from '@pydantic/genai-prices';
import OpenAI from 'openai';

import { newId } from '../src/common/ids';
import { LATENCY_BUCKET_STARTS, LATENCY_BUCKETS, latencyBucketBoundMs, rollupsFromLogsQuery } from '../src/request-logs/usage-rollups';
import { UsageRetentionService } from '../src/usage/usage-retention.service';
import {
  anthropicEvents,
  anthropicJson,
  anthropicMessage,
  anthropicStream,
  startFakeAnthropicUpstream,
} from './fakes/fake-anthropic-upstream';
import {
  FakeUpstream,
  openaiChunks,
  openaiCompletion,
  openaiJson,
  openaiStream,
  startFakeOpenAIUpstream,
} from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, deploy, INVOKE_APP_ENV, invokePath, listen, requestLogRows } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

const GPT = 'gpt-4o';
const CLAUDE = 'claude-sonnet-4-20250514';
const OPENAI_USAGE = {
  prompt_tokens: 1000,
  completion_tokens: 300,
  prompt_tokens_details: { cached_tokens: 600 },
  completion_tokens_details: { reasoning_tokens: 200 },
};
const ANTHROPIC_USAGE = { input_tokens: 40, cache_read_input_tokens: 2000, cache_creation_input_tokens: 500, output_tokens: 70 };

type Kinds = { input: number; cacheRead: number; cacheWrite: number; reasoning: number; output: number };
const OPENAI_KINDS: Kinds = { input: 400, cacheRead: 600, cacheWrite: 0, reasoning: 200, output: 100 };
const ANTHROPIC_KINDS: Kinds = { input: 40, cacheRead: 2000, cacheWrite: 500, reasoning: 0, output: 70 };

/** The cost as the price table itself computes it (genai-prices' calcPrice), independently of Parley's arithmetic. */
function tableCost(kinds: Kinds, model: string, providerId: string): number {
  const usage = {
    input_tokens: kinds.input + kinds.cacheRead + kinds.cacheWrite,
    cache_read_tokens: kinds.cacheRead,
    cache_write_tokens: kinds.cacheWrite,
    output_tokens: kinds.output + kinds.reasoning,
  };
  return calcPrice(usage, model, { providerId })!.total_price;
}

const logKinds = (row: Record<string, any>): Kinds => ({
  input: row.uncached_input_tokens,
  cacheRead: row.cache_read_tokens,
  cacheWrite: row.cache_write_tokens,
  reasoning: row.reasoning_tokens,
  output: row.output_tokens,
});

/** Issue 18: tokens by kind, cost, rollups and /v2/usage through fake OpenAI-compatible and Anthropic upstreams. */
describe('usage and cost: tokens by kind, plain, streamed and cut mid-way', () => {
  let t: TestApp;
  let p: TestProject;
  let client: OpenAI;
  let openaiFake: FakeUpstream;
  let anthropicFake: FakeUpstream;
  const from = new Date(Date.now() - 3_600_000).toISOString();

  beforeAll(async () => {
    openaiFake = await startFakeOpenAIUpstream();
    anthropicFake = await startFakeAnthropicUpstream();
    t = await createTestApp({ ...INVOKE_APP_ENV, USAGE_RETENTION_DAYS: '400' });
    const baseUrl = await listen(t);
    p = await createProject(t);
    client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: p.key, maxRetries: 0 });
    await addProviderCredential(t, p, { name: 'oai', type: 'openai', baseUrl: openaiFake.url, apiKey: 'sk-up' });
    await addProviderCredential(t, p, { name: 'claude', type: 'anthropic', baseUrl: anthropicFake.url, apiKey: 'sk-ant' });
    await deploy(t, p, { slug: 'summarise', provider: 'claude', model: CLAUDE });
  });
  afterAll(async () => {
    await t.close();
    await openaiFake.close();
    await anthropicFake.close();
  });

  it('OpenAI-compatible, plain: cached and reasoning tokens reach the client, the log splits them and prices each kind', async () => {
    openaiFake.setNext(openaiJson(openaiCompletion({ content: 'ok', model: GPT, usage: OPENAI_USAGE })));
    const completion = await client.chat.completions.create({ model: `oai/${GPT}`, messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.usage).toEqual({
      prompt_tokens: 1000,
      completion_tokens: 300,
      total_tokens: 1300,
      prompt_tokens_details: { cached_tokens: 600 },
      completion_tokens_details: { reasoning_tokens: 200 },
    });
    const log = (await requestLogRows(t, p.projectId)).at(-1)!;
    expect(logKinds(log)).toEqual(OPENAI_KINDS);
    expect([log.prompt_tokens, log.completion_tokens, log.total_tokens, log.usage_partial]).toEqual([1000, 300, 1300, false]);
    expect(Number(log.cost_usd)).toBeCloseTo(tableCost(OPENAI_KINDS, GPT, 'openai'), 12);
    expect(log.price_ref).toMatch(/^genai-prices \d+\.\d+\.\d+: openai\/gpt-4o$/);
  });

  it('OpenAI-compatible, streamed without include_usage: usage is asked of the upstream and logged, not sent to the client', async () => {
    openaiFake.setNext(openaiStream(openaiChunks({ content: ['o', 'k'], model: GPT, usage: OPENAI_USAGE })));
    const stream = await client.chat.completions.create({ model: `oai/${GPT}`, messages: [{ role: 'user', content: 'hi' }], stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(openaiFake.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true });
    expect(chunks.every((chunk) => !chunk.usage)).toBe(true);
    const log = (await requestLogRows(t, p.projectId)).at(-1)!;
    expect([logKinds(log), log.usage_partial]).toEqual([OPENAI_KINDS, false]);
  });

  it('OpenAI-compatible, streamed with include_usage: the client gets the usage chunk with its details', async () => {
    openaiFake.setNext(openaiStream(openaiChunks({ content: ['o', 'k'], model: GPT, usage: OPENAI_USAGE })));
    const stream = await client.chat.completions.create({
      model: `oai/${GPT}`,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage;
    for await (const chunk of stream) usage = chunk.usage ?? usage;
    expect(usage).toMatchObject({ prompt_tokens_details: { cached_tokens: 600 }, completion_tokens_details: { reasoning_tokens: 200 } });
  });

  it('Anthropic, plain and streamed through a deployment: cache reads and writes apart from uncached input', async () => {
    anthropicFake.setNext(anthropicJson(anthropicMessage({ text: 'ok', model: CLAUDE, usage: ANTHROPIC_USAGE })));
    const plain = await t
      .http()
      .post(invokePath(p, 'summarise'))
      .set('X-API-Key', p.key)
      .send({ messages: [{ role: 'user', content: 'hi' }] })
      .expect(200);
    expect(plain.body.usage).toEqual({
      prompt_tokens: 2540,
      completion_tokens: 70,
      total_tokens: 2610,
      prompt_tokens_details: { cached_tokens: 2000 },
    });
    anthropicFake.setNext(anthropicStream(anthropicEvents({ text: ['o', 'k'], model: CLAUDE, usage: ANTHROPIC_USAGE })));
    await t
      .http()
      .post(invokePath(p, 'summarise'))
      .set('X-API-Key', p.key)
      .send({ stream: true, messages: [{ role: 'user', content: 'hi' }] })
      .expect(200);
    const [a, b] = (await requestLogRows(t, p.projectId)).slice(-2);
    for (const log of [a, b]) {
      expect([logKinds(log), log.usage_partial, log.status]).toEqual([ANTHROPIC_KINDS, false, 200]);
      expect(Number(log.cost_usd)).toBeCloseTo(tableCost(ANTHROPIC_KINDS, CLAUDE, 'anthropic'), 12);
    }
  });

  it('a stream cut mid-way records what was known, marked partial', async () => {
    const events = anthropicEvents({ text: ['one', ' two', ' three'], model: CLAUDE, usage: ANTHROPIC_USAGE });
    // message_start (prompt usage) and the first text deltas, then the connection drops.
    anthropicFake.setNext(anthropicStream(events.slice(0, 4), { dropConnection: true }));
    const cut = await t
      .http()
      .post(invokePath(p, 'summarise'))
      .set('X-API-Key', p.key)
      .send({ stream: true, messages: [{ role: 'user', content: 'hi' }] });
    expect(cut.text).toContain('"error"');
    openaiFake.setNext(
      openaiStream(openaiChunks({ content: ['o', 'k'], model: GPT, usage: OPENAI_USAGE }).slice(0, 2), { dropConnection: true }),
    );
    const stream = await client.chat.completions.create({ model: `oai/${GPT}`, messages: [{ role: 'user', content: 'hi' }], stream: true });
    await expect(
      (async () => {
        for await (const _chunk of stream) void _chunk;
      })(),
    ).rejects.toThrow();

    const [anthropicCut, openaiCut] = (await requestLogRows(t, p.projectId)).slice(-2);
    // Anthropic told the prompt's usage at the start and one output token so far.
    expect([logKinds(anthropicCut), anthropicCut.usage_partial, anthropicCut.status]).toEqual([
      { ...ANTHROPIC_KINDS, output: 1 },
      true,
      502,
    ]);
    expect(Number(anthropicCut.cost_usd)).toBeCloseTo(tableCost({ ...ANTHROPIC_KINDS, output: 1 }, CLAUDE, 'anthropic'), 12);
    // OpenAI reports usage only at the end: nothing known, no cost, still marked partial.
    expect([logKinds(openaiCut), openaiCut.usage_partial, openaiCut.cost_usd]).toEqual([
      { input: null, cacheRead: null, cacheWrite: null, reasoning: null, output: null },
      true,
      null,
    ]);
  });

  it('rollups equal the sums over the logs, and /v2/usage shows each kind of token once with the cost of the logs', async () => {
    const logs = await requestLogRows(t, p.projectId);
    const expected: Array<Record<string, unknown>> = await t.dataSource.query(
      `${rollupsFromLogsQuery('project_id = $1')} ORDER BY 2, 3, 4, 5, 6, 7, 8`,
      [p.projectId],
    );
    const rollups: Array<Record<string, unknown>> = await t.dataSource.query(
      `SELECT ${Object.keys(expected[0]).join(', ')} FROM usage_rollups WHERE project_id = $1 ORDER BY 2, 3, 4, 5, 6, 7, 8`,
      [p.projectId],
    );
    expect(rollups.map(normalise)).toEqual(expected.map(normalise));
    const expectedDaily: Array<Record<string, unknown>> = await t.dataSource.query(
      `${rollupsFromLogsQuery('project_id = $1', 'day')} ORDER BY 2, 3, 4, 5, 6, 7, 8`,
      [p.projectId],
    );
    const daily: Array<Record<string, unknown>> = await t.dataSource.query(
      `SELECT ${Object.keys(expectedDaily[0]).join(', ')} FROM usage_rollups_daily WHERE project_id = $1 ORDER BY 2, 3, 4, 5, 6, 7, 8`,
      [p.projectId],
    );
    expect(daily.map(normalise)).toEqual(expectedDaily.map(normalise));

    const report = await t.http().get('/v2/usage').query({ from, bucket: 'hour', group_by: 'model' }).set('X-API-Key', p.key).expect(200);
    const sum = (pick: (log: Record<string, any>) => number | null) => logs.reduce((acc, log) => acc + (pick(log) ?? 0), 0);
    expect(report.body.totals).toMatchObject({
      calls: logs.length,
      errors: logs.filter((log) => log.status >= 400).length,
      partialCalls: 2,
      unpricedCalls: 0,
      tokens: {
        uncachedInput: sum((l) => l.uncached_input_tokens),
        cacheRead: sum((l) => l.cache_read_tokens),
        cacheWrite: sum((l) => l.cache_write_tokens),
        reasoning: sum((l) => l.reasoning_tokens),
        output: sum((l) => l.output_tokens),
        total: sum((l) => l.total_tokens),
      },
    });
    const independent =
      3 * tableCost(OPENAI_KINDS, GPT, 'openai') +
      2 * tableCost(ANTHROPIC_KINDS, CLAUDE, 'anthropic') +
      tableCost({ ...ANTHROPIC_KINDS, output: 1 }, CLAUDE, 'anthropic');
    expect(Number(report.body.totals.costUsd)).toBeCloseTo(independent, 12);
    const models = report.body.data.map((row: { model: string }) => row.model).sort();
    expect(models).toEqual(expect.arrayContaining([GPT, CLAUDE]));
    expect(report.body.totals.latencyMs.p50).toBeGreaterThan(0);

    // Whole days are read from the daily rollups: the same sums as the hours of those days.
    const dayReport = await t.http().get('/v2/usage').query({ from, bucket: 'day', group_by: 'model' }).set('X-API-Key', p.key).expect(200);
    expect(dayReport.body.totals).toEqual(report.body.totals);
    const perModel = (rows: Array<{ model: string; calls: number; tokens: { total: number } }>) =>
      Object.fromEntries(
        models.map((m: string) => [
          m,
          rows.filter((r) => r.model === m).reduce((acc, r) => [acc[0] + r.calls, acc[1] + r.tokens.total], [0, 0]),
        ]),
      );
    expect(perModel(dayReport.body.data)).toEqual(perModel(report.body.data));
  });

  it('buckets latencies in SQL as the definition does (ceil(2 · log2 ms) − 8, clamped): every latency to 5 s and around every bound', async () => {
    const bounds = Array.from({ length: LATENCY_BUCKETS - 1 }, (_, i) => latencyBucketBoundMs(i));
    const around = bounds.flatMap((bound) => [-1, 0, 1, 2].map((d) => Math.floor(bound) + d));
    const latencies = [...Array.from({ length: 5003 }, (_, i) => i - 2), ...around, 10_000_000];
    const [row] = await t.dataSource.query(
      `SELECT count(*) FILTER (WHERE by_search <> by_log)::int AS mismatches, count(*)::int AS checked
         FROM (SELECT width_bucket(ms, $1::int[]) AS by_search,
                      least(${LATENCY_BUCKETS - 1}, greatest(0, ceil(2 * log(2::numeric, greatest(ms, 1)::numeric)) - 8))::int AS by_log
                 FROM unnest($2::int[]) AS ms) AS b`,
      [`{${LATENCY_BUCKET_STARTS.join(',')}}`, `{${latencies.join(',')}}`],
    );
    expect(row).toEqual({ mismatches: 0, checked: latencies.length });
  });

  it('exports tokens by kind and cost per project and model to Prometheus', async () => {
    const logs = (await requestLogRows(t, p.projectId)).filter((log) => log.model === GPT);
    const text = (await t.http().get('/metrics').expect(200)).text;
    const value = (name: string, labels: string) => Number(new RegExp(`^${name}\\{${labels}\\} (\\S+)$`, 'm').exec(text)?.[1]);
    const labels = `project="${p.workspace}/${p.project}",model="${GPT}"`;
    expect(value('parley_usage_tokens_total', `${labels},kind="cache_read"`)).toBe(
      logs.reduce((sum, log) => sum + (log.cache_read_tokens ?? 0), 0),
    );
    expect(value('parley_usage_tokens_total', `${labels},kind="reasoning"`)).toBe(
      logs.reduce((sum, log) => sum + (log.reasoning_tokens ?? 0), 0),
    );
    expect(value('parley_usage_cost_usd_total', labels)).toBeCloseTo(
      logs.reduce((sum, log) => sum + Number(log.cost_usd ?? 0), 0),
      12,
    );
  });

  it('lists a model without a price as unpriced, its cost null (never 0)', async () => {
    openaiFake.setNext(
      openaiJson(openaiCompletion({ content: 'ok', model: 'house-model-7b', usage: { prompt_tokens: 5, completion_tokens: 2 } })),
    );
    await client.chat.completions.create({ model: 'oai/house-model-7b', messages: [{ role: 'user', content: 'hi' }] });
    const log = (await requestLogRows(t, p.projectId)).at(-1)!;
    expect([log.cost_usd, log.price_ref, log.total_tokens]).toEqual([null, null, 7]);
    const report = await t.http().get('/v2/usage').query({ from }).set('X-API-Key', p.key).expect(200);
    expect(report.body.unpriced).toEqual([{ provider: 'oai', model: 'house-model-7b', calls: 1 }]);
    expect(report.body.totals.unpricedCalls).toBe(1);
  });

  it('prices a model from an override set in the admin API or parley.yaml, which wins over the price table', async () => {
    const prices = `/v2/workspaces/${p.workspace}/projects/${p.project}/prices`;
    const admin = { 'X-API-Key': TEST_ADMIN_KEY };
    const bad = await t
      .http()
      .put(prices)
      .set(admin)
      .send({ prices: [{ provider: 'oai', model: 'm', inputPerMTok: -1, outputPerMTok: 1 }] })
      .expect(400);
    expect(bad.body.error.details[0]).toMatch(/^prices\.0\.inputPerMTok: /);
    await t.http().put(prices).set('X-API-Key', p.key).send({ prices: [] }).expect(403);
    const set = await t
      .http()
      .put(prices)
      .set(admin)
      .send({ prices: [{ provider: 'oai', model: 'house-model-7b', inputPerMTok: 0.2, outputPerMTok: 0.6, cacheReadPerMTok: 0.05 }] })
      .expect(200);
    expect(set.body).toMatchObject({
      object: 'project.prices',
      prices: [
        {
          provider: 'oai',
          model: 'house-model-7b',
          inputPerMTok: '0.2',
          outputPerMTok: '0.6',
          cacheReadPerMTok: '0.05',
          cacheWritePerMTok: null,
        },
      ],
    });
    expect((await t.http().get(prices).set(admin).expect(200)).body.prices).toHaveLength(1);

    openaiFake.setNext(
      openaiJson(
        openaiCompletion({
          content: 'ok',
          model: 'house-model-7b',
          usage: { prompt_tokens: 1000, completion_tokens: 500, prompt_tokens_details: { cached_tokens: 400 } },
        }),
      ),
    );
    await client.chat.completions.create({ model: 'oai/house-model-7b', messages: [{ role: 'user', content: 'hi' }] });
    const priced = (await requestLogRows(t, p.projectId)).at(-1)!;
    // 600 × 0.2 + 400 × 0.05 + 500 × 0.6 = 440 per million
    expect([priced.cost_usd, priced.price_ref]).toEqual(['0.00044', 'override: oai/house-model-7b']);

    // parley.yaml: the operator's (a project key may not set prices), replacing the overrides.
    const file = {
      workspace: p.workspace,
      project: p.project,
      prices: [{ provider: 'oai', model: GPT, inputPerMTok: 0, outputPerMTok: 0 }],
    };
    await t.http().post('/v2/apply').set('X-API-Key', p.key).send(file).expect(403);
    await t.http().post('/v2/apply').set(admin).send(file).expect(200);
    expect((await t.http().get(prices).set(admin).expect(200)).body.prices.map((o: { model: string }) => o.model)).toEqual([GPT]);
    openaiFake.setNext(openaiJson(openaiCompletion({ content: 'ok', model: GPT, usage: OPENAI_USAGE })));
    await client.chat.completions.create({ model: `oai/${GPT}`, messages: [{ role: 'user', content: 'hi' }] });
    expect((await requestLogRows(t, p.projectId)).at(-1)!).toMatchObject({ cost_usd: '0', price_ref: `override: oai/${GPT}` });
    await t.http().put(prices).set(admin).send({ prices: [] }).expect(200);
  });

  it('answers 400 for a bad range or group, and keeps a project key to its own project', async () => {
    const bad = await t.http().get('/v2/usage').query({ from, group_by: 'model,colour' }).set('X-API-Key', p.key).expect(400);
    expect(bad.body.error.details).toEqual([
      'group_by: "colour" is not one of prompt, version, environment, model, provider, key, project, workspace',
    ]);
    await t.http().get('/v2/usage').query({ from: 'yesterday' }).set('X-API-Key', p.key).expect(400);
    await t
      .http()
      .get('/v2/usage')
      .query({ from: '2026-01-01T00:00:00Z', to: '2026-03-01T00:00:00Z', bucket: 'hour' })
      .set('X-API-Key', p.key)
      .expect(400);
    await t.http().get('/v2/usage').query({ from, group_by: 'project' }).set('X-API-Key', p.key).expect(400);
    await t.http().get('/v2/usage').query({ from, workspace: 'other' }).set('X-API-Key', p.key).expect(400);

    const app = await t
      .http()
      .post(`/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`)
      .set('X-API-Key', TEST_ADMIN_KEY)
      .send({ name: 'app', preset: 'app' })
      .expect(200);
    await t.http().get('/v2/usage').query({ from }).set('X-API-Key', app.body.key).expect(403);

    const other = await createProject(t);
    const empty = await t.http().get('/v2/usage').query({ from }).set('X-API-Key', other.key).expect(200);
    expect([empty.body.data, empty.body.totals.calls]).toEqual([[], 0]);
  });

  it('gives the admin key any project, by workspace and project, with totals per workspace', async () => {
    const mine = await t
      .http()
      .get('/v2/usage')
      .query({ from, workspace: p.workspace, group_by: 'project' })
      .set('X-API-Key', TEST_ADMIN_KEY)
      .expect(200);
    const own = await t.http().get('/v2/usage').query({ from }).set('X-API-Key', p.key).expect(200);
    expect(mine.body.data.map((row: { workspace: string; project: string }) => [row.workspace, row.project])).toEqual([
      [p.workspace, p.project],
    ]);
    expect(mine.body.workspaces).toEqual([{ workspace: p.workspace, ...own.body.totals }]);
    expect(mine.body.totals).toEqual(own.body.totals);
  });

  it("answers OpenAI's organization usage and costs shapes from the rollups (admin key)", async () => {
    const logs = await requestLogRows(t, p.projectId);
    const start = Math.floor(Date.parse(from) / 1000);
    const admin = { 'X-API-Key': TEST_ADMIN_KEY };
    await t.http().get('/v1/organization/usage/completions').query({ start_time: start }).set('X-API-Key', p.key).expect(403);
    const bad = await t
      .http()
      .get('/v1/organization/usage/completions')
      .query({ start_time: start, bucket_width: '1m' })
      .set(admin)
      .expect(400);
    expect(bad.body.error).toMatchObject({ type: 'invalid_request_error', param: 'bucket_width' });

    const usage = await t
      .http()
      .get(`/v1/organization/usage/completions?start_time=${start}&bucket_width=1h&limit=3&group_by=model&project_ids=${p.projectId}`)
      .set(admin)
      .expect(200);
    expect(usage.body).toMatchObject({ object: 'page', has_more: false, next_page: null });
    const results = usage.body.data
      .flatMap((bucket: { results: Array<Record<string, any>> }) => bucket.results)
      .filter((r: { model: string }) => r.model === GPT);
    const gptLogs = logs.filter((log) => log.model === GPT);
    expect(results.reduce((sum: number, r: Record<string, number>) => sum + r.num_model_requests, 0)).toBe(gptLogs.length);
    expect(results.reduce((sum: number, r: Record<string, number>) => sum + r.input_cached_tokens, 0)).toBe(
      gptLogs.reduce((sum, log) => sum + (log.cache_read_tokens ?? 0), 0),
    );
    expect(results[0]).toMatchObject({
      object: 'organization.usage.completions.result',
      project_id: null,
      api_key_id: null,
      user_id: null,
      batch: null,
    });

    const costs = await t
      .http()
      .get(`/v1/organization/costs?start_time=${start}&group_by=project_id&project_ids=${p.projectId}`)
      .set(admin)
      .expect(200);
    const amounts = costs.body.data.flatMap((bucket: { results: Array<Record<string, any>> }) => bucket.results);
    expect(
      amounts.every(
        (r: Record<string, any>) => r.object === 'organization.costs.result' && r.project_id === p.projectId && r.amount.currency === 'usd',
      ),
    ).toBe(true);
    expect(amounts.reduce((sum: number, r: Record<string, any>) => sum + r.amount.value, 0)).toBeCloseTo(
      logs.reduce((sum, log) => sum + Number(log.cost_usd ?? 0), 0),
      9,
    );
  });

  it('keeps rollups for USAGE_RETENTION_DAYS, on their own horizon', async () => {
    const current = Number((await t.dataSource.query('SELECT count(*) AS n FROM usage_rollups WHERE project_id = $1', [p.projectId]))[0].n);
    await t.dataSource.query(
      `INSERT INTO usage_rollups SELECT project_id, $2::uuid, hour - interval '401 days', prompt_slug, version, environment, model, provider_name, api_key_id,
         calls, errors, partial_calls, unpriced_calls, uncached_input_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, output_tokens, cost_usd, latency_buckets
         FROM usage_rollups WHERE project_id = $1 LIMIT 1`,
      [p.projectId, newId()],
    );
    const currentDaily = Number(
      (await t.dataSource.query('SELECT count(*) AS n FROM usage_rollups_daily WHERE project_id = $1', [p.projectId]))[0].n,
    );
    await t.dataSource.query(
      `INSERT INTO usage_rollups_daily SELECT project_id, $2::uuid, day - interval '401 days', prompt_slug, version, environment, model, provider_name, api_key_id,
         calls, errors, partial_calls, unpriced_calls, uncached_input_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, output_tokens, cost_usd, latency_buckets
         FROM usage_rollups_daily WHERE project_id = $1 LIMIT 1`,
      [p.projectId, newId()],
    );
    expect(await t.app.get(UsageRetentionService).deleteExpired()).toBeGreaterThanOrEqual(2);
    const left = await t.dataSource.query('SELECT hour FROM usage_rollups WHERE project_id = $1', [p.projectId]);
    expect(left.length).toBe(current);
    const leftDaily = await t.dataSource.query('SELECT day FROM usage_rollups_daily WHERE project_id = $1', [p.projectId]);
    expect(leftDaily.length).toBe(currentDaily);
  });
});

/** Numbers as numbers (bigint and numeric come back as text), arrays too. */
function normalise(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).map(([key, value]) => {
      if (value instanceof Date) return [key, value.toISOString()];
      if (Array.isArray(value)) return [key, value.map(Number)];
      if (
        typeof value === 'string' &&
        key !== 'prompt_slug' &&
        key !== 'environment' &&
        key !== 'model' &&
        key !== 'provider_name' &&
        /^-?\d+(\.\d+)?$/.test(value)
      )
        return [key, Number(value)];
      return [key, value];
    }),
  );
}
