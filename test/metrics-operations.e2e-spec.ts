import { createProject, TestProject } from './support/factories';
import { deployedPrompt } from './support/registry-factories';
import { createTestApp, TestApp } from './support/test-app';

/** GET /metrics behind METRICS_TOKEN, the time-to-first-token histogram, the limits, streaming and history-cache gauges and the PostgreSQL pool gauges. */
describe('metrics: token, time to first token, database pool', () => {
  const token = 'metrics-token-0123456789abcdef';
  let t: TestApp;
  let p: TestProject;

  beforeAll(async () => {
    t = await createTestApp({ METRICS_TOKEN: token });
    p = await createProject(t);
    await deployedPrompt(t, p, 'ttft');
  });
  afterAll(async () => {
    delete process.env.METRICS_TOKEN;
    await t.close();
  });

  const scrape = () => t.http().get('/metrics').set('Authorization', `Bearer ${token}`).expect(200);

  it('answers 401 without the token or with another, 200 with it', async () => {
    const missing = await t.http().get('/metrics').expect(401);
    expect(missing.body).toEqual({ error: 'Unauthorized', message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>' });
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    await t.http().get('/metrics').set('Authorization', `Bearer ${token}x`).expect(401);
    expect((await scrape()).text).toContain('parley_http_requests_total');
  });

  it('observes time to first token for a streamed invoke, not for a plain one', async () => {
    const path = `/${p.workspace}/${p.project}/ttft/production`;
    await t
      .http()
      .post(path)
      .set('X-API-Key', p.key)
      .send({ messages: [{ role: 'user', content: 'plain' }] })
      .expect(200);
    const before = /parley_time_to_first_token_seconds_count\{provider="local",model="echo"\} (\d+)/.exec((await scrape()).text);
    expect(before).toBeNull();
    await t
      .http()
      .post(path)
      .set('X-API-Key', p.key)
      .send({ stream: true, messages: [{ role: 'user', content: 'streamed' }] })
      .expect(200);
    const after = /parley_time_to_first_token_seconds_count\{provider="local",model="echo"\} (\d+)/.exec((await scrape()).text);
    expect(Number(after?.[1])).toBe(1);
  });

  it('reports limit settings reads (one per project and cache miss) and projects waiting for streaming work', async () => {
    const q = await createProject(t);
    await deployedPrompt(t, q, 'reads');
    const reads = async () => Number(/^parley_limits_settings_reads (\d+)$/m.exec((await scrape()).text)?.[1]);
    const before = await reads();
    const path = `/${q.workspace}/${q.project}/reads/production`;
    await Promise.all(
      Array.from({ length: 10 }, () =>
        t
          .http()
          .post(path)
          .set('X-API-Key', q.key)
          .send({ messages: [{ role: 'user', content: 'hi' }] })
          .expect(200),
      ),
    );
    // Ten calls of a new project missed together: one read.
    expect((await reads()) - before).toBe(1);
    expect((await scrape()).text).toMatch(/^parley_stream_projects_waiting 0$/m);
  });

  it('reports the thread histories kept between turns, and reads of only what is new', async () => {
    await deployedPrompt(t, p, 'chat', 'assistant');
    const path = `/${p.workspace}/${p.project}/chat/production`;
    const gauge = (text: string, series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\d+)$`, 'm').exec(text)?.[1]);
    const before = (await scrape()).text;
    const first = await t
      .http()
      .post(path)
      .set('X-API-Key', p.key)
      .send({ messages: [{ role: 'user', content: 'one' }] })
      .expect(200);
    const threadId = first.headers['x-parley-thread-id'];
    for (const content of ['two', 'three']) {
      await t
        .http()
        .post(path)
        .set('X-API-Key', p.key)
        .send({ threadId, messages: [{ role: 'user', content }] })
        .expect(200);
    }
    const after = (await scrape()).text;
    // The second call read the thread whole (nothing kept yet), the third only the second's turns.
    expect(gauge(after, 'parley_history_reads{read="whole"}') - gauge(before, 'parley_history_reads{read="whole"}')).toBe(1);
    expect(gauge(after, 'parley_history_reads{read="new_only"}') - gauge(before, 'parley_history_reads{read="new_only"}')).toBe(1);
    expect(gauge(after, 'parley_history_cache_threads')).toBeGreaterThanOrEqual(1);
    expect(gauge(after, 'parley_history_cache_bytes')).toBeGreaterThan(0);
  });

  (process.env.DATABASE_URL ? it : it.skip)('reports the PostgreSQL pool: connections in use and idle, queries waiting', async () => {
    const text = (await scrape()).text;
    const inUse = Number(/parley_db_pool_connections\{state="in_use"\} (\d+)/.exec(text)?.[1]);
    const idle = Number(/parley_db_pool_connections\{state="idle"\} (\d+)/.exec(text)?.[1]);
    expect(inUse).toBeGreaterThanOrEqual(0);
    expect(inUse + idle).toBeGreaterThan(0);
    expect(text).toMatch(/^parley_db_pool_waiting \d+$/m);
  });
});
