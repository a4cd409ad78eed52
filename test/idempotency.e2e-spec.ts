import { FakeUpstream, openaiChunks, openaiStream, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import {
  addProviderCredential,
  deploy,
  INVOKE_APP_ENV,
  invokePath,
  listen,
  requestLogRows,
  threadMessageRows,
} from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/** Issue 13 item 5: Idempotency-Key on invokes and creating POSTs (docs/security.md). */
describe('idempotency keys', () => {
  let t: TestApp;
  let fake: FakeUpstream;
  let p: TestProject;
  let baseUrl: string;
  const user = (content: string) => ({ role: 'user', content });
  const invoke = (slug: string, body: object, key?: string, as = p) => {
    const req = t.http().post(invokePath(as, slug)).set('X-API-Key', as.key);
    return (key ? req.set('Idempotency-Key', key) : req).send(body);
  };
  const upstreamCalls = () => fake.requests.filter((r) => r.path === '/v1/chat/completions').length;

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    t = await createTestApp(INVOKE_APP_ENV);
    baseUrl = await listen(t);
    p = await createProject(t);
    await addProviderCredential(t, p, { name: 'fake', type: 'openai', baseUrl: fake.url });
    await deploy(t, p, { slug: 'helper', kind: 'assistant', provider: 'fake', model: 'gpt-fake' });
    await deploy(t, p, { slug: 'summary', provider: 'fake', model: 'gpt-fake' });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('replays an assistant call with its thread-id header, without calling the provider or appending again', async () => {
    const body = { messages: [user('first question')] };
    const first = await invoke('helper', body, 'retry-1');
    expect(first.status).toBe(200);
    const threadId = first.headers['x-parley-thread-id'];
    const calls = upstreamCalls();
    const again = await invoke('helper', body, 'retry-1');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers['x-parley-thread-id']).toBe(threadId);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(upstreamCalls()).toBe(calls);
    expect(await threadMessageRows(t, p.projectId, threadId)).toHaveLength(2);
    expect((await requestLogRows(t, p.projectId)).filter((l) => l.thread_id === threadId)).toHaveLength(1);
  });

  it('answers 422 for the same key with another body, and runs a request with another key', async () => {
    await invoke('summary', { messages: [user('one')] }, 'retry-2').expect(200);
    const other = await invoke('summary', { messages: [user('two')] }, 'retry-2');
    expect(other.status).toBe(422);
    expect(other.body).toEqual({
      error: 'Unprocessable Entity',
      message: 'This Idempotency-Key was already used with a different request',
    });
    const calls = upstreamCalls();
    await invoke('summary', { messages: [user('two')] }, 'retry-3').expect(200);
    expect(upstreamCalls()).toBe(calls + 1);
  });

  it('answers 409 while the first request with the key is still running', async () => {
    fake.setNext(openaiStream(openaiChunks({ content: ['slow', ' reply'] }), { delayMs: 250 }));
    // Streamed, so the fake upstream can answer slowly.
    const body = { stream: true, messages: [user('take your time')] };
    const first = invoke('summary', body, 'retry-4');
    const firstDone = first.then((res) => res);
    await fake.waitForRequests(fake.requests.length + 1);
    const second = await invoke('summary', body, 'retry-4');
    expect(second.status).toBe(409);
    expect(second.body).toEqual({ error: 'Conflict', message: 'A request with this Idempotency-Key is still being processed' });
    expect((await firstDone).status).toBe(200);
  });

  it('replays a streamed call as a stream of the stored completion', async () => {
    const body = { stream: true, messages: [user('stream me please')] };
    const post = () =>
      fetch(`${baseUrl}${invokePath(p, 'helper')}`, {
        method: 'POST',
        headers: { 'X-API-Key': p.key, 'Content-Type': 'application/json', 'Idempotency-Key': 'retry-5' },
        body: JSON.stringify(body),
      });
    const first = await post();
    const firstText = await first.text();
    const threadId = first.headers.get('x-parley-thread-id')!;
    const calls = upstreamCalls();
    const again = await post();
    expect(again.status).toBe(200);
    expect(again.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(again.headers.get('x-parley-thread-id')).toBe(threadId);
    const events = (await again.text())
      .split('\n\n')
      .filter(Boolean)
      .map((e) => e.replace(/^data: /, ''));
    expect(events.at(-1)).toBe('[DONE]');
    const text = (s: string[]) =>
      s
        .filter((e) => e.startsWith('{'))
        .map((e) => JSON.parse(e).choices[0]?.delta?.content ?? '')
        .join('');
    expect(text(events)).toBe(
      text(
        firstText
          .split('\n\n')
          .filter(Boolean)
          .map((e) => e.replace(/^data: /, '')),
      ),
    );
    expect(text(events)).toBe('stream me please');
    expect(upstreamCalls()).toBe(calls);
    expect(await threadMessageRows(t, p.projectId, threadId)).toHaveLength(2);
  });

  it('gives the key back when the provider failed with a 5xx, so the retry runs', async () => {
    fake.setNext(
      { type: 'json', status: 500, body: { error: { message: 'boom' } } },
      { type: 'json', status: 500, body: { error: { message: 'boom' } } },
      { type: 'json', status: 500, body: { error: { message: 'boom' } } },
    );
    const body = { messages: [user('fails first')] };
    expect((await invoke('summary', body, 'retry-6')).status).toBe(502);
    expect((await invoke('summary', body, 'retry-6')).status).toBe(200);
  });

  it('scopes keys to the project: another project may use the same key', async () => {
    const q = await createProject(t);
    await deploy(t, q, { slug: 'summary' });
    await invoke('summary', { messages: [user('mine')] }, 'shared-key').expect(200);
    const theirs = await invoke('summary', { messages: [user('theirs')] }, 'shared-key', q);
    expect(theirs.status).toBe(200);
    expect(theirs.body.choices[0].message.content).toBe('theirs');
  });

  it('refuses a malformed key', async () => {
    const res = await invoke('summary', { messages: [user('x')] }, 'x'.repeat(256));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Bad Request', message: 'Idempotency-Key must be 1 to 255 visible ASCII characters' });
  });

  describe('creating POSTs', () => {
    it('replays Create Thread with the same id and creates one thread', async () => {
      const body = { metadata: { order: '42' } };
      const first = await t.http().post('/v2/threads').set('X-API-Key', p.key).set('Idempotency-Key', 'thread-1').send(body).expect(200);
      const again = await t.http().post('/v2/threads').set('X-API-Key', p.key).set('Idempotency-Key', 'thread-1').send(body).expect(200);
      expect(again.body).toEqual(first.body);
      expect(again.headers['idempotent-replayed']).toBe('true');
      const rows = await t.dataSource.query(`SELECT id FROM threads WHERE project_id = $1 AND metadata->>'order' = '42'`, [p.projectId]);
      expect(rows).toEqual([{ id: first.body.id }]);
      const other = await t
        .http()
        .post('/v2/threads')
        .set('X-API-Key', p.key)
        .set('Idempotency-Key', 'thread-1')
        .send({ metadata: { order: '43' } });
      expect(other.status).toBe(422);
      expect(other.body).toEqual({ error: { message: 'This Idempotency-Key was already used with a different request' } });
    });

    it('replays Create Thread Message and a 400 alike', async () => {
      const thread = await t.http().post('/v2/threads').set('X-API-Key', p.key).send({}).expect(200);
      const path = `/v2/threads/${thread.body.id}/messages`;
      const body = { message: { role: 'user', content: 'only once' } };
      const first = await t.http().post(path).set('X-API-Key', p.key).set('Idempotency-Key', 'msg-1').send(body).expect(200);
      await t.http().post(path).set('X-API-Key', p.key).set('Idempotency-Key', 'msg-1').send(body).expect(200);
      expect(await threadMessageRows(t, p.projectId, thread.body.id)).toHaveLength(1);
      expect(first.body.content).toEqual([{ role: 'user', content: 'only once' }]);
      const bad = await t
        .http()
        .post(path)
        .set('X-API-Key', p.key)
        .set('Idempotency-Key', 'msg-2')
        .send({ message: { role: 'nobody' } });
      expect(bad.status).toBe(400);
      const badAgain = await t
        .http()
        .post(path)
        .set('X-API-Key', p.key)
        .set('Idempotency-Key', 'msg-2')
        .send({ message: { role: 'nobody' } });
      expect(badAgain.status).toBe(400);
      expect(badAgain.body).toEqual(bad.body);
    });

    it("compares bodies by their bytes: a body nested too deep to re-serialise is its endpoint's 400, not a 500 (found by the fuzz test)", async () => {
      const deep = '['.repeat(20_000) + ']'.repeat(20_000);
      const res = await t
        .http()
        .post('/v2/threads')
        .set('X-API-Key', p.key)
        .set('Idempotency-Key', 'deep-1')
        .set('Content-Type', 'application/json')
        .send(deep);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: { message: 'Invalid request body', details: ['the body nests arrays and objects more than 64 levels deep'] },
      });
    });

    it("works on the admin API's creating POSTs", async () => {
      const admin = { 'X-API-Key': TEST_ADMIN_KEY, 'Idempotency-Key': `ws-${p.projectId}` };
      const slug = `idem-${p.projectId.slice(-8)}`;
      const first = await t.http().post('/v2/workspaces').set(admin).send({ slug }).expect(200);
      const again = await t.http().post('/v2/workspaces').set(admin).send({ slug });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
    });

    it('replays a created API key and admin key with the same secret, which the database holds only sealed', async () => {
      const admin = { 'X-API-Key': TEST_ADMIN_KEY };
      const creates = [
        {
          path: `/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`,
          body: { name: 'idempotent' },
          key: `apikey-${p.projectId}`,
        },
        { path: `/v2/workspaces/${p.workspace}/admin-keys`, body: { name: 'idempotent' }, key: `adminkey-${p.projectId}` },
      ];
      for (const create of creates) {
        const first = await t
          .http()
          .post(create.path)
          .set({ ...admin, 'Idempotency-Key': create.key })
          .send(create.body)
          .expect(200);
        expect(first.body.key).toEqual(expect.any(String));
        const again = await t
          .http()
          .post(create.path)
          .set({ ...admin, 'Idempotency-Key': create.key })
          .send(create.body)
          .expect(200);
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(again.body).toEqual(first.body);
        const [row] = await t.dataSource.query('SELECT outcome::text AS outcome FROM idempotency_keys WHERE key = $1', [create.key]);
        expect(JSON.parse(row.outcome)).toEqual({ kind: 'sealed', sealed: expect.stringMatching(/^v1\./) });
        expect(row.outcome).not.toContain(first.body.key);
        expect(row.outcome).not.toContain(first.body.id);
      }
      const keys = await t.http().get(`/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`).set(admin).expect(200);
      // One key was created, and the secret replayed is its secret: it authenticates.
      const replayed = (
        await t
          .http()
          .post(creates[0].path)
          .set({ ...admin, 'Idempotency-Key': creates[0].key })
          .send(creates[0].body)
          .expect(200)
      ).body.key;
      await t.http().get('/v2/threads').set('X-API-Key', replayed).expect(200);
      expect(keys.body.data.filter((k: { name: string }) => k.name === 'idempotent')).toHaveLength(1);
    });
  });
});
