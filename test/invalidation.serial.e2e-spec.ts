import { FakeUpstream, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, deploy, INVOKE_APP_ENV, invokePath } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/**
 * Cache invalidation across instances (docs/scaling.md): a change committed on instance A reaches
 * instance B's caches within 1 s through LISTEN/NOTIFY. Both caches get a 60 s TTL here, so only a
 * notification can explain B seeing the change in time. On PostgreSQL, A and B are two complete
 * applications on one database; on PGlite (one process owns the database) there is one instance,
 * and the change is also made "from elsewhere": raw SQL plus the notification another instance's
 * transaction would send, which the in-process listener must deliver.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
const CACHE_ENV = { ...INVOKE_APP_ENV, AUTH_CACHE_TTL_MS: '60000', REGISTRY_CACHE_TTL_MS: '60000' };
const BOUND_MS = 1000;

/** Polls `check` until it holds; returns how long that took, or fails after `BOUND_MS`. */
async function within(check: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > BOUND_MS) throw new Error(`not visible within ${BOUND_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe(`cache invalidation across instances (${onPostgres ? 'two instances on PostgreSQL' : 'one instance on PGlite'})`, () => {
  let a: TestApp;
  let b: TestApp;
  let upstream: FakeUpstream;
  const saved = { AUTH_CACHE_TTL_MS: process.env.AUTH_CACHE_TTL_MS, REGISTRY_CACHE_TTL_MS: process.env.REGISTRY_CACHE_TTL_MS };

  beforeAll(async () => {
    a = await createTestApp(CACHE_ENV);
    b = onPostgres ? await createTestApp(CACHE_ENV) : a;
    upstream = await startFakeOpenAIUpstream();
  });
  afterAll(async () => {
    await upstream.close();
    if (b !== a) await b.close();
    await a.close();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  const threadsOn = (t: TestApp, p: TestProject) => t.http().get('/v2/threads').set('X-API-Key', p.key);
  const invokeOn = (t: TestApp, p: TestProject, slug: string) => t.http().post(invokePath(p, slug)).set('X-API-Key', p.key).send({});
  const answerOf = (res: { body: { choices?: { message: { content: string } }[] } }) => res.body.choices?.[0]?.message.content;

  it('a key revoked on A is refused by B within 1 s', async () => {
    const p = await createProject(a);
    await threadsOn(b, p).expect(200); // B now holds the key in its cache
    await a
      .http()
      .delete(`/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys/${p.keyId}`)
      .set('X-API-Key', TEST_ADMIN_KEY)
      .expect(200);
    const elapsed = await within(async () => (await threadsOn(b, p)).status === 401);
    expect(elapsed).toBeLessThan(BOUND_MS);
    const [row] = await b.dataSource.query('SELECT revoked_at FROM api_keys WHERE id = $1', [p.keyId]);
    expect(row.revoked_at).not.toBeNull();
  });

  it('a new deployment on A is served by B within 1 s', async () => {
    const p = await createProject(a);
    await deploy(a, p, { slug: 'greeter', template: [{ role: 'user', content: 'version one' }] });
    expect(answerOf(await invokeOn(b, p, 'greeter').expect(200))).toBe('version one'); // cached on B
    await deploy(a, p, { slug: 'greeter', template: [{ role: 'user', content: 'version two' }] });
    const elapsed = await within(async () => answerOf(await invokeOn(b, p, 'greeter')) === 'version two');
    expect(elapsed).toBeLessThan(BOUND_MS);
  });

  it('a provider key rotated on A is used by B within 1 s', async () => {
    const p = await createProject(a);
    await addProviderCredential(a, p, { name: 'upstream', type: 'openai', baseUrl: upstream.url, apiKey: 'sk-first-key' });
    await deploy(a, p, { slug: 'relay', provider: 'upstream', model: 'gpt-fake', template: [{ role: 'user', content: 'hello' }] });
    const sentKey = async () => {
      const before = upstream.requests.length;
      await invokeOn(b, p, 'relay').expect(200);
      return upstream.requests.slice(before).at(-1)?.headers.authorization;
    };
    expect(await sentKey()).toBe('Bearer sk-first-key');
    await a
      .http()
      .put('/v2/provider-credentials/upstream')
      .set('X-API-Key', p.key)
      .send({ type: 'openai', baseUrl: upstream.url, apiKey: 'sk-rotated-key' })
      .expect(200);
    const elapsed = await within(async () => (await sentKey()) === 'Bearer sk-rotated-key');
    expect(elapsed).toBeLessThan(BOUND_MS);
  });

  it('a change committed elsewhere reaches the caches through the notification alone', async () => {
    const p = await createProject(a);
    await threadsOn(b, p).expect(200);
    // What another instance's revoke commits: the row change and its notification, nothing in our memory.
    await a.dataSource.transaction(async (manager) => {
      await manager.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [p.keyId]);
      await manager.query(`SELECT pg_notify('parley_changes', $1)`, [`k:${p.keyId}`]);
    });
    expect(await within(async () => (await threadsOn(b, p)).status === 401)).toBeLessThan(BOUND_MS);
  });

  it('a rolled-back change notifies nobody', async () => {
    const p = await createProject(a);
    await threadsOn(b, p).expect(200);
    await a.dataSource
      .transaction(async (manager) => {
        await manager.query(`SELECT pg_notify('parley_changes', $1)`, [`k:${p.keyId}`]);
        await manager.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [p.keyId]);
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    // Not revoked, and B's cache was not disturbed: the key keeps working.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await threadsOn(b, p).expect(200);
  });

  (onPostgres ? it : it.skip)('a listener that lost its connection reconnects and flushes the caches', async () => {
    const p = await createProject(a);
    await threadsOn(b, p).expect(200);
    // Revoked with no notification at all (as if it was sent while B's listener was away)...
    await a.dataSource.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [p.keyId]);
    await threadsOn(b, p).expect(200); // ...so B still serves it from its cache (60 s TTL)...
    // ...until B's listener connection dies: it reconnects and drops everything it may have missed.
    const terminated = await a.dataSource.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'parley-listener' AND datname = current_database()`,
    );
    expect(terminated.length).toBeGreaterThanOrEqual(2);
    expect(await within(async () => (await threadsOn(b, p)).status === 401)).toBeLessThan(BOUND_MS);
    // And it listens again (retry after 100 ms): the next notified change still arrives.
    await within(async () => {
      const [row] = await a.dataSource.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'parley-listener' AND datname = current_database()`,
      );
      return row.n >= 2;
    });
    const q = await createProject(a);
    await threadsOn(b, q).expect(200);
    await a
      .http()
      .delete(`/v2/workspaces/${q.workspace}/projects/${q.project}/api-keys/${q.keyId}`)
      .set('X-API-Key', TEST_ADMIN_KEY)
      .expect(200);
    expect(await within(async () => (await threadsOn(b, q)).status === 401)).toBeLessThan(BOUND_MS);
  });
});
