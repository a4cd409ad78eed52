import { startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { FakeUpstream } from './fakes/fake-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, deploy, INVOKE_APP_ENV, invokePath, listen } from './support/invoke-factories';
import { pooled } from './support/split-surfaces';
import { createTestApp, TestApp } from './support/test-app';

/**
 * Issue 43's Done-when, weighted routing: 10,000 calls over targets weighted 9:1 (`local/echo`, and
 * model `beta` on a fake OpenAI-format upstream) land within 1.5 points of the weights, counted from
 * the answers' `x-parley-model` and from the request logs. The spec invoke (plain) is the cheapest
 * surface; the others share its router (the fault suite, routing-faults*.e2e-spec.ts, covers them).
 *
 * Every call is an independent draw, so `beta`'s count is binomial (n = 10,000, p = 0.1, σ = 30).
 * False failures: the test fails when |count − 1,000| ≥ 150 (5 σ), probability 6.9e-7 (exact binomial
 * tail, both sides): one run in 1.4 million. Weights 3:1 would give σ = 43 and 5.6e-4 for the same
 * bound. A router that ignores the weights (even shares) is 40 points off; one that always takes
 * the first target, 10.
 */
const CALLS = 10_000;
const BETA_PERCENT = 10;
const BOUND_POINTS = 1.5;

describe('weighted routing: 10,000 calls land within 1.5 points of 9:1', () => {
  let t: TestApp;
  let p: TestProject;
  let base: string;
  let fake: FakeUpstream;

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    t = await createTestApp(INVOKE_APP_ENV);
    base = await listen(t);
    p = await createProject(t);
    await addProviderCredential(t, p, { name: 'up', type: 'openai', baseUrl: fake.url, apiKey: 'sk-up' });
    await deploy(t, p, {
      slug: 'weighed',
      routing: {
        strategy: 'weighted',
        targets: [
          { provider: 'local', model: 'echo', weight: 9 },
          { provider: 'up', model: 'beta', weight: 1 },
        ],
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('the share of each target within 1.5 points; header, log and upstream agree on every call', async () => {
    // As in experiments-split-distribution.e2e-spec.ts: PGlite answers in this thread, PostgreSQL batches concurrent writes.
    const concurrency = process.env.DATABASE_URL ? 16 : 8;
    const fakeBefore = fake.requests.length;
    const served = await pooled(CALLS, concurrency, async (i) => {
      const res = await fetch(`${base}${invokePath(p, 'weighed')}`, {
        method: 'POST',
        headers: { 'X-API-Key': p.key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: `call ${i}` }] }),
      });
      const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
      if (res.status !== 200) throw new Error(`call ${i}: ${res.status} ${JSON.stringify(body)}`);
      return {
        logId: res.headers.get('x-parley-log-id')!,
        provider: res.headers.get('x-parley-provider'),
        model: res.headers.get('x-parley-model'),
        attempts: res.headers.get('x-parley-attempts'),
        said: body.choices[0].message.content,
      };
    });

    // Every answer names one of the two targets, served at the first attempt, and says what was asked.
    const pairs = new Set(served.map((s) => `${s.provider}/${s.model}/${s.attempts}`));
    expect([...pairs].sort()).toEqual(['local/echo/1', 'up/beta/1']);
    expect(served.filter((s, i) => s.said !== `call ${i}`)).toEqual([]);
    const beta = served.filter((s) => s.model === 'beta').length;
    console.log(
      `weighted 9:1 over ${CALLS} calls: up/beta served ${beta} (${((beta / CALLS) * 100).toFixed(2)} %, expected ${BETA_PERCENT} %)`,
    );
    expect(Math.abs((beta / CALLS) * 100 - BETA_PERCENT)).toBeLessThan(BOUND_POINTS);
    // The fake upstream was asked exactly as often as the answers say it served.
    expect(fake.requests.length - fakeBefore).toBe(beta);

    // The logs, counted on their own: one row per call, each naming the target its answer named.
    const rows: Array<{ id: string; provider_name: string; model: string; status: number }> = await t.dataSource.query(
      `SELECT id, provider_name, model, status FROM request_logs WHERE project_id = $1 AND prompt_slug = 'weighed'`,
      [p.projectId],
    );
    expect(rows).toHaveLength(CALLS);
    expect(rows.filter((row) => row.status !== 200)).toEqual([]);
    const logged = new Map(rows.map((row) => [row.id, `${row.provider_name}/${row.model}`]));
    expect(served.filter((s) => logged.get(s.logId) !== `${s.provider}/${s.model}`)).toEqual([]);
    expect(rows.filter((row) => row.model === 'beta')).toHaveLength(beta);
  }, 300_000);
});
