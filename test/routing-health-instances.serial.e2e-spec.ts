import request from 'supertest';

import { openaiCompletion, openaiError, openaiJson } from './fakes/fake-openai-upstream';
import { FakeUpstream, startFakeUpstream } from './fakes/fake-upstream';
import { createProject, TestProject } from './support/factories';
import { FreshDatabase, freshDatabase, queryFresh } from './support/fresh-database';
import { addProviderCredential, INVOKE_APP_ENV, invokePath, sleep } from './support/invoke-factories';
import { ServerProcess, startServer } from './support/server-process';
import { createTestApp, TestApp } from './support/test-app';

/**
 * Issue 43 item 3 (docs/routing.md, "Health"): a target failing on instance A cools down on
 * instance B within 1 s, and is probed back once its cooldown ends. On PostgreSQL, A and B are two
 * server processes (the built server) on one database of their own; on PGlite (one process owns
 * the database) there is one instance in-process, and the rest is the same. Serial: it measures a
 * propagation time.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
const COOLDOWN_MS = 2000;
const BOUND_MS = 1000;
const ENV = { ...INVOKE_APP_ENV, PARLEY_ROUTING_COOLDOWN_MS: String(COOLDOWN_MS), PROVIDER_MAX_RETRIES: '0' };

/** A version served by `primary` first, `backup` when primary fails or cools down. */
const routedContent = {
  template: [{ role: 'system', content: 'You are terse.' }],
  routing: {
    strategy: 'priority',
    targets: [
      { provider: 'primary', model: 'gpt-4o' },
      { provider: 'backup', model: 'gpt-4o' },
    ],
  },
};

interface Instance {
  http: () => ReturnType<typeof request>;
}

describe(`routing health across instances (${onPostgres ? 'two processes on PostgreSQL' : 'one instance on PGlite'})`, () => {
  let fresh: FreshDatabase | undefined;
  let servers: ServerProcess[] = [];
  let app: TestApp | undefined;
  let a: Instance;
  let b: Instance;
  let p: TestProject;
  let primary: FakeUpstream;
  let backup: FakeUpstream;
  let primaryDown = true;

  beforeAll(async () => {
    primary = await startFakeUpstream(() =>
      primaryDown
        ? openaiError(500, 'primary is down', { 'x-should-retry': 'false' })
        : openaiJson(openaiCompletion({ content: 'from primary' })),
    );
    backup = await startFakeUpstream(() => openaiJson(openaiCompletion({ content: 'from backup' })));
    if (onPostgres) {
      fresh = await freshDatabase({ migrated: true });
      servers = [await startServer({ ...ENV, ...(fresh.env as Record<string, string>) })];
      servers.push(await startServer({ ...ENV, ...(fresh.env as Record<string, string>) }));
      [a, b] = servers.map((server) => ({ http: () => request(server.url) }));
    } else {
      app = await createTestApp(ENV);
      a = b = app;
    }
    p = await createProject(a as TestApp);
    await addProviderCredential(a as TestApp, p, { name: 'primary', type: 'openai', baseUrl: `${primary.url}/v1`, apiKey: 'sk-primary' });
    await addProviderCredential(a as TestApp, p, { name: 'backup', type: 'openai', baseUrl: `${backup.url}/v1`, apiKey: 'sk-backup' });
    const as = { 'X-API-Key': p.key };
    await a.http().post('/v2/prompts').set(as).send({ slug: 'routed', kind: 'prompt' }).expect(200);
    const version = await a.http().post('/v2/prompts/routed/versions').set(as).send(routedContent).expect(200);
    await a
      .http()
      .post('/v2/prompts/routed/deployments')
      .set(as)
      .send({ environment: 'production', version: version.body.version })
      .expect(200);
    await a.http().post('/v2/prompts').set(as).send({ slug: 'helper', kind: 'assistant' }).expect(200);
    const assistant = await a.http().post('/v2/prompts/helper/versions').set(as).send(routedContent).expect(200);
    await a
      .http()
      .post('/v2/prompts/helper/deployments')
      .set(as)
      .send({ environment: 'production', version: assistant.body.version })
      .expect(200);
  }, 120_000);
  afterAll(async () => {
    for (const server of servers) server.child.kill('SIGKILL');
    await Promise.all(servers.map((server) => server.exited));
    await app?.close();
    await fresh?.drop();
    await primary?.close();
    await backup?.close();
  });

  const db = <T>(sql: string, params: unknown[]): Promise<T[]> =>
    fresh ? queryFresh<T>(fresh, sql, params) : app!.dataSource.query(sql, params);
  const rowOf = async () =>
    (
      await db<{ trips: number; failures: number; reason: string }>(
        `SELECT trips, failures, reason FROM routing_target_health WHERE project_id = $1 AND provider = 'primary' AND model = 'gpt-4o'`,
        [p.projectId],
      )
    )[0];
  const invoke = async (on: Instance, slug = 'routed', threadId?: string) => {
    const res = await on
      .http()
      .post(invokePath(p, slug))
      .set('X-API-Key', p.key)
      .send({ messages: [{ role: 'user', content: 'hi' }], ...(threadId ? { threadId } : {}) });
    expect(res.status).toBe(200);
    return {
      provider: res.headers['x-parley-provider'],
      attempts: Number(res.headers['x-parley-attempts']),
      text: res.body.choices[0].message.content,
    };
  };
  /** A new assistant thread: its id and the target that served its first turn. */
  const threadOf = async (on: Instance, slug: string) => {
    const res = await on
      .http()
      .post(invokePath(p, slug))
      .set('X-API-Key', p.key)
      .send({ messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    return { threadId: res.headers['x-parley-thread-id'] as string, provider: res.headers['x-parley-provider'] };
  };
  const coolingOn = async (on: Instance): Promise<number> => {
    const text = (await on.http().get('/metrics').expect(200)).text;
    return Number(/^parley_routing_cooling_targets (\d+)$/m.exec(text)?.[1] ?? NaN);
  };

  it('a target failing on A cools down on B within 1 s; B sends it nothing until the cooldown ends, then probes it back', async () => {
    expect(await coolingOn(b)).toBe(0);
    // Three calls through A: each fails on primary (a 500) and is served by backup; the third trips primary.
    for (let i = 0; i < 2; i++) expect(await invoke(a)).toEqual({ provider: 'backup', attempts: 2, text: 'from backup' });
    // Timed from before the third call: an upper bound of the time from the trip to B knowing it.
    const tripped = Date.now();
    expect(await invoke(a)).toEqual({ provider: 'backup', attempts: 2, text: 'from backup' });
    const answered = Date.now();
    while ((await coolingOn(b)) !== 1) {
      if (Date.now() - tripped > BOUND_MS) throw new Error(`B did not hear of the trip within ${BOUND_MS} ms`);
      await sleep(10);
    }
    const [elapsed, afterAnswer] = [Date.now() - tripped, Date.now() - answered];
    expect(elapsed).toBeLessThan(BOUND_MS);
    process.stdout.write(
      `routing health: B knew of the trip ${elapsed} ms after A's third call began, ${afterAnswer} ms after it answered\n`,
    );
    expect(await rowOf()).toEqual({ trips: 1, failures: 3, reason: 'server_error' });

    // B's calls go straight to backup: one attempt, primary's fake not called.
    const primaryCalls = primary.requests.length;
    for (let i = 0; i < 3; i++) expect(await invoke(b)).toEqual({ provider: 'backup', attempts: 1, text: 'from backup' });
    expect(primary.requests.length).toBe(primaryCalls);

    // Primary recovers; once the cooldown ends, B's next call probes it and the row is gone.
    primaryDown = false;
    await sleep(COOLDOWN_MS + 100 - (Date.now() - tripped));
    expect(await invoke(b)).toEqual({ provider: 'primary', attempts: 1, text: 'from primary' });
    for (let i = 0; ; i++) {
      if (!(await rowOf())) break;
      if (i > 100) throw new Error('the recovery was not written');
      await sleep(10);
    }
    expect(primary.requests.length).toBe(primaryCalls + 1);
    // And A, told of the recovery, routes to primary again.
    for (let i = 0; i < 2; i++) expect(await invoke(a)).toEqual({ provider: 'primary', attempts: 1, text: 'from primary' });
    expect(await coolingOn(a)).toBe(0);
  });

  it("a thread sticks to the target that served it, on a replica that never served it (read once from the thread's log)", async () => {
    // Served by backup on A: primary failed once (no trip) and the call fell back.
    primaryDown = true;
    const thread = await threadOf(a, 'helper');
    expect(thread.provider).toBe('backup');
    primaryDown = false;
    // Primary is healthy again, first by priority: a new thread goes to it, this one stays on backup, on B too.
    expect((await threadOf(b, 'helper')).provider).toBe('primary');
    for (let i = 0; i < 2; i++) expect(await invoke(b, 'helper', thread.threadId)).toMatchObject({ provider: 'backup', attempts: 1 });
    const logs = await db<{ provider_name: string; status: number }>(
      'SELECT provider_name, status FROM request_logs WHERE project_id = $1 AND thread_id = $2 ORDER BY id',
      [p.projectId, thread.threadId],
    );
    expect(logs).toEqual([
      { provider_name: 'backup', status: 200 },
      { provider_name: 'backup', status: 200 },
      { provider_name: 'backup', status: 200 },
    ]);
  });
});
