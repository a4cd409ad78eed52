import { newId } from '../src/common/ids';
import { LATENCY_BUCKET_STARTS, LATENCY_BUCKETS, latencyBucketBoundMs } from '../src/request-logs/usage-rollups';
import { openaiCompletion, openaiError, openaiJson, RecordedRequest } from './fakes/fake-openai-upstream';
import { FakeUpstream, startFakeUpstream } from './fakes/fake-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, deploy, INVOKE_APP_ENV, invokePath } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * An upstream where the version whose system message says "Arm B" fails the calls numbered 0, 1 and 2
 * modulo 10 (a 500 it asks not to retry: Parley answers 502), and every other call succeeds with 12
 * prompt tokens and 1 to 5 completion tokens.
 */
function failingUpstream(req: RecordedRequest) {
  if (req.method !== 'POST' || req.path !== '/v1/chat/completions') return openaiError(404, `No route ${req.path}`);
  const text = JSON.stringify(req.body.messages);
  const call = Number(/call (\d+)/.exec(text)?.[1] ?? 0);
  if (text.includes('Arm B') && call % 10 < 3) return openaiError(500, 'arm B fails', { 'x-should-retry': 'false' });
  return openaiJson(
    openaiCompletion({ content: 'ok', model: req.body.model, usage: { prompt_tokens: 12, completion_tokens: 1 + (call % 5) } }),
  );
}

/** The exact percentile's bucket, as the histogram holds it: what the reported one must fall in (docs/usage.md). */
function bucketBounds(sorted: number[], q: number): [number, number] {
  const exact = sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1];
  const i = LATENCY_BUCKET_STARTS.filter((start) => start <= exact).length;
  const low = i === 0 ? 1 : latencyBucketBoundMs(i - 1);
  return [Math.floor(low), Math.ceil(i === LATENCY_BUCKETS - 1 ? low : latencyBucketBoundMs(i))];
}

/**
 * Per-arm results (docs/experiments.md, "Per-arm results") through HTTP: a 50/50 split whose second
 * arm fails 30 % of its calls, feedback on some of each arm's calls, and the answer held against the
 * request logs and a hand computation; a plain deployment as one arm; whole days read from the daily
 * rollups; the 404s and the scope.
 */
describe('experiment results', () => {
  let t: TestApp;
  let p: TestProject;
  let fake: FakeUpstream;
  let split: { id: string; deploymentVersion: number; deployedAt: string };
  const logs: Record<number, string[]> = { 1: [], 2: [] };
  const sent: Record<string, Record<number, number[]>> = { helpful: { 1: [], 2: [] }, rating: { 1: [], 2: [] } };

  const as = () => ({ 'X-API-Key': p.key });
  const results = (slug: string, environment = 'production', key = p.key) =>
    t.http().get(`/v2/prompts/${slug}/deployments/${environment}/results`).set('X-API-Key', key);
  const invoke = (slug: string, content: string) =>
    t
      .http()
      .post(invokePath(p, slug))
      .set(as())
      .send({ messages: [{ role: 'user', content }] });
  const inParallel = async (count: number, work: (i: number) => Promise<void>, concurrency = 8) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) await work(next++);
      }),
    );
  };
  /** The request logs of a prompt in production since `from`, per version: what the rollups sum. */
  const loggedSince = async (slug: string, from: string) => {
    const rows: Array<Record<string, any>> = await t.dataSource.query(
      `SELECT version, status, cost_usd::text AS cost, prompt_tokens, completion_tokens, latency_ms, deployment_id
         FROM request_logs WHERE project_id = $1 AND prompt_slug = $2 AND environment = 'production' AND started_at >= $3`,
      [p.projectId, slug, from],
    );
    return (version: number) => rows.filter((row) => row.version === version);
  };

  beforeAll(async () => {
    fake = await startFakeUpstream(failingUpstream);
    t = await createTestApp(INVOKE_APP_ENV);
    p = await createProject(t);
    await addProviderCredential(t, p, { name: 'up', type: 'openai', baseUrl: `${fake.url}/v1`, apiKey: 'sk-up' });
    await deploy(t, p, { slug: 'reply', provider: 'up', model: 'gpt-4o', template: [{ role: 'system', content: 'Arm A.' }] });
    await deploy(t, p, { slug: 'reply', provider: 'up', model: 'gpt-4o-mini', template: [{ role: 'system', content: 'Arm B.' }] });
    // Calls of the plain deployment of v2 before the split: in its first hour, so counted (firstHourShared).
    for (let i = 0; i < 5; i++) await invoke('reply', `call ${i + 5}`).expect(200);
    const body = { environment: 'production', split: [1, 2].map((version) => ({ version, weight: 50 })), stickyBy: 'none' };
    split = (await t.http().post('/v2/prompts/reply/deployments').set(as()).send(body).expect(200)).body;
    await inParallel(400, async (i) => {
      const res = await invoke('reply', `call ${i}`);
      expect([200, 502]).toContain(res.status);
      if (res.status === 200) logs[Number(res.headers['x-parley-version'])].push(res.headers['x-parley-log-id']);
    });
    // helpful: 4 of 5 true on v1, 3 of 10 on v2; rating: 3, 4, 5 on v1, 2, 3, 4 on v2.
    const feedback: Array<{ logId: string; name: string; value: number | boolean; version: number }> = [];
    for (const version of [1, 2]) {
      logs[version].slice(0, 60).forEach((logId, i) => {
        feedback.push({ logId, name: 'helpful', value: version === 1 ? i % 5 !== 0 : i % 10 < 3, version });
        if (i < 20) feedback.push({ logId, name: 'rating', value: (version === 1 ? 3 : 2) + (i % 3), version });
      });
    }
    await inParallel(feedback.length, async (i) => {
      const { version, ...item } = feedback[i];
      await t.http().post('/v2/feedback').set(as()).send(item).expect(201);
      sent[item.name][version].push(Number(item.value));
    });
  }, 180_000);
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('per arm: calls, errors, tokens, cost and latency equal the request logs since the hour the split started', async () => {
    const res = await results('reply').expect(200);
    const body = res.body;
    expect(body).toMatchObject({
      object: 'experiment.results',
      prompt: 'reply',
      environment: 'production',
      deploymentId: split.id,
      deploymentVersion: split.deploymentVersion,
      since: split.deployedAt,
      countedFrom: new Date(Math.floor(Date.parse(split.deployedAt) / HOUR_MS) * HOUR_MS).toISOString(),
    });
    expect(body.arms.map((arm: any) => [arm.version, arm.weight, arm.control])).toEqual([
      [1, 50, true],
      [2, 50, false],
    ]);
    const logged = await loggedSince('reply', body.countedFrom);
    const earlier: Array<{ version: number; replaced_at: string }> = (
      await t.dataSource.query(
        `SELECT v.version, d.replaced_at FROM deployments d JOIN prompt_versions v ON v.project_id = d.project_id AND v.id = d.version_id
          WHERE d.project_id = $1 AND d.replaced_at IS NOT NULL
            AND d.prompt_id = (SELECT id FROM prompts WHERE project_id = $1 AND slug = 'reply')`,
        [p.projectId],
      )
    ).map((row: any) => ({ version: row.version, replaced_at: new Date(row.replaced_at).toISOString() }));
    for (const arm of body.arms) {
      const rows = logged(arm.version);
      const errors = rows.filter((row) => row.status >= 400).length;
      expect([arm.calls, arm.errors, arm.unpricedCalls]).toEqual([rows.length, errors, 0]);
      expect(arm.errorRate).toBeCloseTo(errors / rows.length, 12);
      expect(arm.errorRateInterval.low).toBeLessThanOrEqual(arm.errorRate);
      expect(arm.errorRateInterval.high).toBeGreaterThanOrEqual(arm.errorRate);
      const sum = (pick: (row: Record<string, any>) => number) => rows.reduce((total, row) => total + pick(row), 0);
      const [input, output] = [sum((row) => row.prompt_tokens ?? 0), sum((row) => row.completion_tokens ?? 0)];
      expect(arm.tokens).toEqual({ input, output, total: input + output });
      const cost = sum((row) => Number(row.cost ?? 0));
      expect(Number(arm.costUsd)).toBeCloseTo(cost, 12);
      // costPerCallUsd is rounded to 12 places.
      expect(Number(arm.costPerCallUsd)).toBeCloseTo(cost / rows.length, 11);
      const latencies = rows.map((row) => Number(row.latency_ms)).sort((a, b) => a - b);
      for (const [q, reported] of [
        [0.5, arm.latencyMs.p50],
        [0.95, arm.latencyMs.p95],
      ]) {
        const [low, high] = bucketBounds(latencies, q);
        expect(reported).toBeGreaterThanOrEqual(low);
        expect(reported).toBeLessThanOrEqual(high);
      }
      // The split's own calls are among them; the plain deployments' of the same hour too (firstHourShared).
      expect(rows.filter((row) => row.deployment_id === split.id).length).toBeLessThanOrEqual(arm.calls);
      const replaced = earlier.filter((d) => d.version === arm.version).map((d) => Date.parse(d.replaced_at));
      expect([arm.firstHourShared, arm.servedBefore]).toEqual([replaced.some((at) => at >= Date.parse(body.countedFrom)), true]);
    }
    // v2's plain deployment was replaced by the split itself, in its first hour.
    expect(body.arms[1].firstHourShared).toBe(true);
    const [v1, v2] = body.arms;
    expect(v1.errors).toBe(0);
    expect(v2.errors / v2.calls).toBeGreaterThan(0.2);
    // gpt-4o-mini is the cheaper model: the arms' costs per call differ.
    expect(Number(v2.costPerCallUsd)).toBeLessThan(Number(v1.costPerCallUsd));
  });

  it('feedback per arm: the means equal a hand computation, with Wilson and Student t intervals', async () => {
    const body = (await results('reply').expect(200)).body;
    for (const arm of body.arms) {
      const byName = Object.fromEntries(arm.feedback.map((score: any) => [score.name, score]));
      const helpful = sent.helpful[arm.version];
      const rating = sent.rating[arm.version];
      expect(byName.helpful).toMatchObject({ kind: 'boolean', count: 60, n: 60, interval: expect.objectContaining({ method: 'wilson' }) });
      expect(byName.helpful.mean).toBeCloseTo(helpful.reduce((s, v) => s + v, 0) / helpful.length, 12);
      expect(byName.rating).toMatchObject({ kind: 'number', count: 20, n: 20, interval: expect.objectContaining({ method: 't' }) });
      expect(byName.rating.mean).toBeCloseTo(rating.reduce((s, v) => s + v, 0) / rating.length, 12);
    }
  });

  it('verdicts of v2 against the control: a higher error rate and a lower helpful rate, each a sentence', async () => {
    const { verdicts } = (await results('reply').expect(200)).body;
    expect(verdicts.map((v: any) => [v.version, v.control, v.metric, v.name, v.better])).toEqual([
      [2, 1, 'error_rate', null, 'lower'],
      [2, 1, 'feedback', 'helpful', 'higher'],
      [2, 1, 'feedback', 'rating', 'higher'],
    ]);
    const [errorRate, helpful, rating] = verdicts;
    expect(errorRate.difference.estimate).toBeGreaterThan(0);
    expect(errorRate.difference.low).toBeGreaterThan(0);
    expect(errorRate).toMatchObject({ winner: 1, reason: null });
    expect(errorRate.verdict).toMatch(/^v2's error rate is higher than v1's: \+\d+\.\d points \(95 % interval \+\d+\.\d to \+\d+\.\d\)$/);
    expect(helpful).toMatchObject({ winner: 1, reason: null });
    expect(helpful.verdict).toMatch(/^v2's "helpful" rate is lower than v1's: -50\.0 points \(95 % interval -/);
    // 2, 3, 4 against 3, 4, 5: one point lower, sd 0.84 over 20 ratings each.
    expect(rating).toMatchObject({ winner: 1, reason: null });
    expect(rating.verdict).toMatch(/^v2's mean "rating" is lower than v1's: -1\.00 \(95 % interval -1\.\d+ to -0\.\d+\)$/);
  });

  it('reads the rollups only: one usage query and one feedback query per request, none of the request logs', async () => {
    const spy = jest.spyOn(t.dataSource, 'query');
    try {
      await results('reply').expect(200);
      const sql = spy.mock.calls.map(([text]) => String(text));
      expect(sql.filter((text) => text.includes('usage_rollups'))).toHaveLength(1);
      expect(sql.filter((text) => text.includes('feedback_rollups'))).toHaveLength(1);
      expect(sql.filter((text) => text.includes('request_logs'))).toEqual([]);
    } finally {
      spy.mockRestore();
    }
  });

  it('a plain deployment answers one arm, the control of weight 1, with no verdicts', async () => {
    await deploy(t, p, { slug: 'solo' });
    for (let i = 0; i < 3; i++) await invoke('solo', `hello ${i}`).expect(200);
    const body = (await results('solo').expect(200)).body;
    expect(body.arms).toEqual([
      expect.objectContaining({
        version: 1,
        weight: 1,
        control: true,
        calls: 3,
        errors: 0,
        errorRate: 0,
        costUsd: '0',
        costPerCallUsd: '0',
        feedback: [],
        firstHourShared: false,
        servedBefore: false,
      }),
    ]);
    expect(body.verdicts).toEqual([]);
  });

  it('a deployment of two days ago: whole days from the daily rollups, the hours around them from the hourly ones, each once', async () => {
    await deploy(t, p, { slug: 'aged' });
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    const deployedAt = new Date(today - 2 * DAY_MS + 10.5 * HOUR_MS);
    await t.dataSource.query(
      `UPDATE deployments SET deployed_at = $2 WHERE project_id = $1 AND replaced_at IS NULL
          AND prompt_id = (SELECT id FROM prompts WHERE project_id = $1 AND slug = 'aged')`,
      [p.projectId, deployedAt],
    );
    // Before the deployment's hour (not counted), its hour, later that day, the next day, today.
    const hours = [5, 10, 15, 36, 48].map((h, i) => ({ at: new Date(today - 2 * DAY_MS + h * HOUR_MS), calls: 2 ** i }));
    const latency = `{${Array.from({ length: LATENCY_BUCKETS }, (_, i) => (i === 3 ? 1 : 0)).join(',')}}`;
    for (const { at, calls } of hours) {
      await t.dataSource.query(
        `INSERT INTO usage_rollups (project_id, id, hour, prompt_slug, version, environment, model, provider_name, api_key_id, calls, errors,
                                    partial_calls, unpriced_calls, uncached_input_tokens, cache_read_tokens, cache_write_tokens,
                                    reasoning_tokens, output_tokens, cost_usd, latency_buckets)
         VALUES ($1, $2, $3, 'aged', 1, 'production', 'echo', 'local', NULL, $4, 0, 0, 0, $4, 0, 0, 0, 0, 0, $5::int[])`,
        [p.projectId, newId(), at, calls, latency],
      );
    }
    await t.dataSource.query(
      `INSERT INTO usage_rollups_daily (project_id, id, day, prompt_slug, version, environment, model, provider_name, api_key_id, calls,
                                        errors, partial_calls, unpriced_calls, uncached_input_tokens, cache_read_tokens,
                                        cache_write_tokens, reasoning_tokens, output_tokens, cost_usd, latency_buckets)
       SELECT project_id, (ARRAY[$2::uuid, $3::uuid, $4::uuid])[row_number() OVER ()], date_trunc('day', hour, 'UTC'), prompt_slug, version,
              environment, model, provider_name, api_key_id, sum(calls), 0, 0, 0, sum(uncached_input_tokens), 0, 0, 0, 0, 0, $5::int[]
         FROM usage_rollups WHERE project_id = $1 AND prompt_slug = 'aged'
        GROUP BY project_id, date_trunc('day', hour, 'UTC'), prompt_slug, version, environment, model, provider_name, api_key_id`,
      [p.projectId, newId(), newId(), newId(), latency],
    );
    const body = (await results('aged').expect(200)).body;
    expect([body.since, body.countedFrom]).toEqual([deployedAt.toISOString(), new Date(deployedAt.getTime() - HOUR_MS / 2).toISOString()]);
    // 2 + 4 (the deployment's day, from its hour on) + 8 (a whole day) + 16 (today); not the 1 of 05:00.
    expect([body.arms[0].calls, body.arms[0].tokens.input]).toEqual([30, 30]);
  });

  it('404s as the registry answers them; a key without usage:read is a 403', async () => {
    const notFound = async (slug: string, environment: string, message: string) => {
      const res = await results(slug, environment).expect(404);
      expect(res.body).toEqual({ error: { message } });
    };
    await notFound('no-such-prompt', 'production', 'Prompt not found');
    await notFound('Not%20A%20Slug', 'production', 'Prompt not found');
    await notFound('reply', 'no-such-env', 'Environment not found');
    await notFound('reply', 'Not%20A%20Slug', 'Environment not found');
    await notFound('reply', 'staging', 'No deployment in staging');
    const other = await createProject(t);
    const res = await results('reply', 'production', other.key).expect(404);
    expect(res.body).toEqual({ error: { message: 'Prompt not found' } });
    const app = await t
      .http()
      .post(`/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`)
      .set('X-API-Key', TEST_ADMIN_KEY)
      .send({ name: 'app', preset: 'app' })
      .expect(200);
    expect((await results('reply', 'production', app.body.key).expect(403)).body).toEqual({
      error: 'Forbidden',
      message: 'This API key lacks the scope this endpoint needs: usage:read',
    });
  });
});
