import { createProject, TestProject } from './support/factories';
import { deploy, INVOKE_APP_ENV, invokePath, sleep } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/**
 * A split's weights changed on instance A reach instance B within 1 s (docs/experiments.md,
 * "Splits"): B serves the new arm on every call from then on, both when an arm gets the traffic
 * and when an arm is stopped (weight 0). The registry cache gets a 60 s TTL here, so only the
 * change notification can explain B following in time. On PostgreSQL, A and B are two complete
 * applications on one database; on PGlite (one process owns the database) there is one instance.
 * Serial: it measures a propagation time.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
const CACHE_ENV = { ...INVOKE_APP_ENV, REGISTRY_CACHE_TTL_MS: '60000' };
const BOUND_MS = 1000;
const VERSION = 'x-parley-version';

describe(`splits across instances (${onPostgres ? 'two instances on PostgreSQL' : 'one instance on PGlite'})`, () => {
  let a: TestApp;
  let b: TestApp;
  let p: TestProject;
  const saved = process.env.REGISTRY_CACHE_TTL_MS;

  beforeAll(async () => {
    a = await createTestApp(CACHE_ENV);
    b = onPostgres ? await createTestApp(CACHE_ENV) : a;
    p = await createProject(a);
    for (const text of ['One.', 'Two.']) await deploy(a, p, { slug: 'greeter', template: [{ role: 'system', content: text }] });
  });
  afterAll(async () => {
    if (b !== a) await b.close();
    await a.close();
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
});
