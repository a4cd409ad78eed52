import { openaiChunks, openaiStream } from './fakes/fake-openai-upstream';
import { FakeUpstream, startFakeUpstream } from './fakes/fake-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, awayFromMinuteBoundary, deploy, INVOKE_APP_ENV, invokePath, sleep } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/**
 * Limits across two instances on one PostgreSQL database (docs/security.md, "Limits"): a limit
 * change reaches the other instance through the change notification within 1 s, the calls made
 * before it arrived count, and `concurrentInvokes` holds exactly across instances. Serial: it
 * measures a propagation time and holds calls open.
 */
describe('limits across instances: changes and concurrency', () => {
  const onPostgres = Boolean(process.env.DATABASE_URL);
  const admin = { 'X-API-Key': TEST_ADMIN_KEY };
  const hello = { messages: [{ role: 'user', content: 'hi' }] };
  let a: TestApp;
  let b: TestApp;
  let fake: FakeUpstream;
  let running = 0;
  let maxRunning = 0;

  beforeAll(async () => {
    // Every upstream call streams for about 600 ms, so concurrent calls overlap.
    fake = await startFakeUpstream((rec) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      void rec.closed.then(() => running--);
      return openaiStream(openaiChunks({ content: ['a', 'b', 'c', 'd', 'e', 'f'] }), { delayMs: 100 });
    });
    a = await createTestApp(INVOKE_APP_ENV);
    // PGlite is one process's database: a second instance exists only on PostgreSQL.
    b = onPostgres ? await createTestApp(INVOKE_APP_ENV) : a;
  });
  afterAll(async () => {
    if (b !== a) await b.close();
    await a.close();
    await fake.close();
  });

  async function project(): Promise<TestProject> {
    const p = await createProject(a);
    await deploy(a, p, { slug: 'shared' });
    return p;
  }

  /** Not within 3 s of a minute boundary: the calls of one check stay in one requests-per-minute window. */
  it("a limit set on A is enforced by B within 1 s, and B's calls made before it count", async () => {
    const p = await project();
    await awayFromMinuteBoundary();
    const invokeOnB = () => b.http().post(invokePath(p, 'shared')).set('X-API-Key', p.key).send(hello);
    // B knows the project has no limits (cached) and serves 3 calls.
    for (let i = 0; i < 3; i++) expect((await invokeOnB()).status).toBe(200);

    await a
      .http()
      .put(`/v2/workspaces/${p.workspace}/projects/${p.project}/limits`)
      .set(admin)
      .send({ project: { requestsPerMinute: 5 } })
      .expect(200);
    const changedAt = Date.now();
    // B admits what is left of the 5 (its 3 earlier calls counted), then refuses: within 1 s of the change.
    let admitted = 0;
    let refusedAt: number | null = null;
    while (Date.now() - changedAt < 3000) {
      const res = await invokeOnB();
      if (res.status === 429) {
        refusedAt = Date.now();
        break;
      }
      expect(res.status).toBe(200);
      admitted++;
    }
    expect(refusedAt).not.toBeNull();
    expect(refusedAt! - changedAt).toBeLessThan(1000);
    expect(admitted).toBeLessThanOrEqual(2);
  });

  it('concurrentInvokes: 4 holds across two instances: never more than 4 calls at the provider', async () => {
    const p = await project();
    await addProviderCredential(a, p, { name: 'slow', type: 'openai', baseUrl: `${fake.url}/v1`, apiKey: 'sk-test' });
    await deploy(a, p, { slug: 'slow', provider: 'slow', model: 'gpt-fake' });
    await a
      .http()
      .put(`/v2/workspaces/${p.workspace}/projects/${p.project}/limits`)
      .set(admin)
      .send({ project: { concurrentInvokes: 4 } })
      .expect(200);
    await sleep(300);
    maxRunning = 0;
    const statuses = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        (i % 2 === 0 ? a : b)
          .http()
          .post(invokePath(p, 'slow'))
          .set('X-API-Key', p.key)
          .send({ ...hello, stream: true })
          .then((res) => res.status),
      ),
    );
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(4);
    expect(maxRunning).toBeLessThanOrEqual(4);

    // The slots come back: once those calls ended, 4 more run at once again.
    await sleep(400);
    maxRunning = 0;
    const again = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        (i % 2 === 0 ? a : b)
          .http()
          .post(invokePath(p, 'slow'))
          .set('X-API-Key', p.key)
          .send({ ...hello, stream: true })
          .then((res) => res.status),
      ),
    );
    expect(again).toEqual([200, 200, 200, 200]);
    expect(maxRunning).toBe(4);
  });
});
