import { GuardChecker } from '../src/experiments/guards/guard-checker';
import { GuardedDeployments } from '../src/experiments/guards/guarded-deployments';
import { hashPoint } from '../src/registry/deployments/split';
import { openaiCompletion, openaiError, openaiJson } from './fakes/fake-openai-upstream';
import { FakeUpstream, startFakeUpstream } from './fakes/fake-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, deploy, INVOKE_APP_ENV, invokePath, sleep } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/**
 * A split's weights changed on instance A reach instance B within 1 s (docs/experiments.md,
 * "Splits"): B serves the new arm on every call from then on, both when an arm gets the traffic
 * and when an arm is stopped (weight 0); and so does an arm a guard stopped on A ("Guards"). The
 * registry cache gets a 60 s TTL here, so only the change notification can explain B following in
 * time. Only A checks guards (every 100 ms; B's checker waits an hour). On PostgreSQL, A and B are
 * two complete applications on one database; on PGlite (one process owns the database) there is
 * one instance. Serial: it measures a propagation time.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
const CACHE_ENV = { ...INVOKE_APP_ENV, REGISTRY_CACHE_TTL_MS: '60000', PROVIDER_MAX_RETRIES: '0' };
const BOUND_MS = 1000;
const VERSION = 'x-parley-version';

describe(`splits across instances (${onPostgres ? 'two instances on PostgreSQL' : 'one instance on PGlite'})`, () => {
  let a: TestApp;
  let b: TestApp;
  let p: TestProject;
  let upstream: FakeUpstream;
  const saved = process.env.REGISTRY_CACHE_TTL_MS;

  beforeAll(async () => {
    // Every 5th call of a version whose system message says "Flaky" fails (a 500 not to retry); others succeed.
    let flakyCalls = 0;
    upstream = await startFakeUpstream((req) => {
      if (!JSON.stringify(req.body?.messages ?? '').includes('Flaky')) return openaiJson(openaiCompletion({ content: 'ok' }));
      flakyCalls += 1;
      return flakyCalls % 5 === 0
        ? openaiError(500, 'flaky', { 'x-should-retry': 'false' })
        : openaiJson(openaiCompletion({ content: 'ok' }));
    });
    a = await createTestApp({ ...CACHE_ENV, PARLEY_GUARD_INTERVAL_MS: '100' });
    b = onPostgres ? await createTestApp({ ...CACHE_ENV, PARLEY_GUARD_INTERVAL_MS: '3600000' }) : a;
    p = await createProject(a);
    for (const text of ['One.', 'Two.']) await deploy(a, p, { slug: 'greeter', template: [{ role: 'system', content: text }] });
    await addProviderCredential(a, p, { name: 'up', type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-up' });
    for (const slug of ['guarded', 'twice'])
      for (const text of ['Steady.', 'Flaky.'])
        await deploy(a, p, { slug, provider: 'up', model: 'gpt-4o', template: [{ role: 'system', content: text }] });
  });
  afterAll(async () => {
    if (b !== a) await b.close();
    await a.close();
    await upstream.close();
    if (saved === undefined) delete process.env.REGISTRY_CACHE_TTL_MS;
    else process.env.REGISTRY_CACHE_TTL_MS = saved;
  });

  /** Deploys the split `[{1, w1}, {2, w2}]` (stickyBy none) to production through A; resolves on A's 200. */
  const splitOnA = (w1: number, w2: number) =>
    a
      .http()
      .post('/v2/prompts/greeter/deployments')
      .set('X-API-Key', p.key)
      .send({
        environment: 'production',
        split: [
          { version: 1, weight: w1 },
          { version: 2, weight: w2 },
        ],
        stickyBy: 'none',
      })
      .expect(200);

  /** The version B served one call with. */
  const servedByB = async (): Promise<string> => {
    const res = await b
      .http()
      .post(invokePath(p, 'greeter'))
      .set('X-API-Key', p.key)
      .send({ messages: [{ role: 'user', content: 'hi' }] })
      .expect(200);
    return res.headers[VERSION];
  };

  /**
   * Changes the weights on A, then polls B until it serves `expected`: answers the milliseconds
   * from A's 200 to B's first call served by `expected`, and checks that every call after it is too.
   */
  async function propagation(w1: number, w2: number, expected: string): Promise<number> {
    await splitOnA(w1, w2);
    const changedAt = Date.now();
    for (;;) {
      if ((await servedByB()) === expected) break;
      if (Date.now() - changedAt > 3000) throw new Error(`B still not serving version ${expected} after 3 s`);
      await sleep(5);
    }
    const elapsed = Date.now() - changedAt;
    const after = await Promise.all(Array.from({ length: 40 }, servedByB));
    expect(new Set(after)).toEqual(new Set([expected]));
    return elapsed;
  }

  it('weights moved on A from 100/0 to 0/100: B serves version 2 on every call within 1 s', async () => {
    await splitOnA(100, 0);
    // B resolves (and caches for 60 s) the split whose only live arm is version 1.
    for (let i = 0; i < 20; i += 1) expect(await servedByB()).toBe('1');
    const elapsed = await propagation(0, 100, '2');
    process.stdout.write(`splits across instances: weights 100/0 -> 0/100 on A, B serves version 2 after ${elapsed} ms\n`);
    expect(elapsed).toBeLessThan(BOUND_MS);
  });

  it('arm 2 stopped on A (weight 0): B serves version 1 on every call within 1 s', async () => {
    await splitOnA(0, 100);
    for (let i = 0; i < 20; i += 1) expect(await servedByB()).toBe('2');
    const elapsed = await propagation(100, 0, '1');
    process.stdout.write(`splits across instances: arm 2 stopped on A (100/0), B serves version 1 after ${elapsed} ms\n`);
    expect(elapsed).toBeLessThan(BOUND_MS);
  });

  /** Deploys a 50/50 split of versions 1 and 2 of `slug` with an error-rate guard through A; answers the deployment. */
  const guardedSplitOnA = async (slug: string, stickyBy: string) =>
    (
      await a
        .http()
        .post(`/v2/prompts/${slug}/deployments`)
        .set('X-API-Key', p.key)
        .send({
          environment: 'production',
          split: [
            { version: 1, weight: 50 },
            { version: 2, weight: 50 },
          ],
          stickyBy,
          guards: [{ metric: 'error_rate', maxIncrease: 2, minCalls: 20 }],
        })
        .expect(200)
    ).body as { id: string; deploymentVersion: number };

  /** One call of `slug` on `app` as `user`: the version that served it, or null when it failed. */
  const served = async (app: TestApp, slug: string, user: string): Promise<string | null> => {
    const res = await app
      .http()
      .post(invokePath(p, slug))
      .set('X-API-Key', p.key)
      .send({ messages: [{ role: 'user', content: 'hi' }], metadata: { user } });
    return res.status === 200 ? res.headers[VERSION] : null;
  };
  const currentOnA = async (slug: string) =>
    (await a.http().get('/v2/deployments').query({ slug, environment: 'production' }).set('X-API-Key', p.key).expect(200)).body.data[0];
  const tripsOf = async (slug: string) =>
    (
      await a
        .http()
        .get('/v2/audit')
        .query({ action: 'deployment.guard_tripped', resourceId: `${slug}@production` })
        .set('X-API-Key', p.key)
        .expect(200)
    ).body.data;

  it('a guard tripped on A (v2 fails 20 % of its calls): B serves version 1 on every call within 1 s', async () => {
    const split = await guardedSplitOnA('guarded', 'user');
    // A caller the split keeps on version 2 (its point falls in the second half): B serves it v2 until the guard trips.
    const user = Array.from({ length: 100 }, (_, i) => `caller-${i}`).find((key) => hashPoint(`${split.id}\u0000${key}`) >= 0.5)!;
    let switchedAt = 0;
    for (const deadline = Date.now() + 30_000; !switchedAt;) {
      const version = await served(b, 'guarded', user);
      if (version === '1') switchedAt = Date.now();
      else expect([null, '2']).toContain(version);
      if (Date.now() > deadline) throw new Error('B still serving version 2 after 30 s');
      await sleep(5);
    }
    const after = await Promise.all(Array.from({ length: 40 }, () => served(b, 'guarded', user)));
    expect(new Set(after)).toEqual(new Set(['1']));
    const stopped = await currentOnA('guarded');
    expect(stopped).toMatchObject({
      deploymentVersion: split.deploymentVersion + 1,
      split: [
        { version: 1, weight: 50 },
        { version: 2, weight: 0 },
      ],
    });
    const [trip, ...more] = await tripsOf('guarded');
    expect(more).toEqual([]);
    expect(trip.after).toMatchObject({ deploymentId: stopped.id, version: 2 });
    // From the moment A wrote the stop (before its commit) to B's first call served by the control.
    const elapsed = switchedAt - Date.parse(stopped.deployedAt);
    process.stdout.write(`splits across instances: guard tripped on A, B serves version 1 after ${elapsed} ms\n`);
    expect(elapsed).toBeLessThan(BOUND_MS);
  }, 60_000);

  it('A and B checking the same deployment at once stop its arm once; a reading of a replaced deployment changes nothing', async () => {
    const split = await guardedSplitOnA('twice', 'none');
    // The deployment as a checker reads it, once A has taken its baseline.
    const guarded = a.app.get(GuardedDeployments);
    let seen: Awaited<ReturnType<GuardedDeployments['page']>>[number] | undefined;
    for (let i = 0; !seen?.baseline && i < 200; i++) {
      seen = (await guarded.page(undefined, 1000)).find((d) => d.id === split.id);
      await sleep(25);
    }
    expect(seen?.baseline).not.toBeNull();
    for (let i = 0; i < 120; i++) await served(b, 'twice', `u${i}`);
    // Each instance's checker with the same reading (A's own periodic check may come first): one stop.
    await Promise.all([a, b, a, b].map((app) => app.app.get(GuardChecker).check(seen!)));
    const stopped = await currentOnA('twice');
    expect(stopped).toMatchObject({
      deploymentVersion: split.deploymentVersion + 1,
      split: [
        { version: 1, weight: 50 },
        { version: 2, weight: 0 },
      ],
    });
    expect(await tripsOf('twice')).toHaveLength(1);
    // A reading of a deployment since replaced (here by the split deployed again) changes nothing.
    const again = await guardedSplitOnA('twice', 'none');
    await Promise.all([a, b].map((app) => app.app.get(GuardChecker).check(seen!)));
    expect(await currentOnA('twice')).toMatchObject({
      id: again.id,
      split: [
        { version: 1, weight: 50 },
        { version: 2, weight: 50 },
      ],
    });
    expect(await tripsOf('twice')).toHaveLength(1);
  }, 60_000);
});
