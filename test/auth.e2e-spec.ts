import { createMessage, createProject, createThread, TestProject } from './support/factories';
import { client, expectUnauthorized } from './support/http';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/** API keys on the thread and message endpoints: 401 everywhere, the Bearer alias, revocation, 403 across kinds. */
describe('auth', () => {
  let t: TestApp;
  let p: TestProject;
  let threadId: string;
  let messageId: string;

  beforeAll(async () => {
    t = await createTestApp();
    p = await createProject(t);
    threadId = (await createThread(t, p)).id;
    messageId = (await createMessage(t, p, threadId, 'hi')).id;
  });
  afterAll(() => t.close());

  type Method = 'get' | 'post' | 'delete';
  /** The ten thread and message endpoints (3–12), each with a body it would accept. */
  const endpoints = (): [string, Method, string, object | undefined][] => [
    ['create thread', 'post', '/v2/threads', {}],
    ['list threads', 'get', '/v2/threads', undefined],
    ['get thread', 'get', `/v2/threads/${threadId}`, undefined],
    ['update thread', 'post', `/v2/threads/${threadId}`, { metadata: { a: 1 } }],
    ['delete thread', 'delete', `/v2/threads/${threadId}`, undefined],
    ['create message', 'post', `/v2/threads/${threadId}/messages`, { message: { content: 'x' } }],
    ['list messages', 'get', `/v2/threads/${threadId}/messages`, undefined],
    ['get message', 'get', `/v2/threads/${threadId}/messages/${messageId}`, undefined],
    ['update message', 'post', `/v2/threads/${threadId}/messages/${messageId}`, { metadata: { a: 1 } }],
    ['delete message', 'delete', `/v2/threads/${threadId}/messages/${messageId}`, undefined],
  ];

  const call = (method: Method, path: string, body: object | undefined, headers: Record<string, string>) => {
    const req = t.http()[method](path).set(headers);
    return body === undefined ? req : req.send(body);
  };

  const flipLast = (key: string) => key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a');
  /** Headers per case; a function, since the project's key exists only once beforeAll ran. */
  const badCredentials: [string, (key: string) => Record<string, string>][] = [
    ['no key', () => ({})],
    ['an empty X-API-Key', () => ({ 'X-API-Key': '' })],
    ['a wrong key', () => ({ 'X-API-Key': 'pk_not-a-real-key-000000000000000' })],
    ['the key with its last character changed', (key) => ({ 'X-API-Key': flipLast(key) })],
    ['the key with a suffix', (key) => ({ 'X-API-Key': `${key}x` })],
    ['a wrong Bearer token', () => ({ Authorization: 'Bearer pk_nope' })],
    ['Basic instead of Bearer', (key) => ({ Authorization: `Basic ${Buffer.from(`user:${key}`).toString('base64')}` })],
    ['the bare key in Authorization', (key) => ({ Authorization: key })],
    ['a Bearer header without a token', () => ({ Authorization: 'Bearer' })],
  ];

  it.each(badCredentials)('%s → 401 {error: "Unauthorized", message: "Invalid API key"} on every endpoint', async (_label, headersFor) => {
    const headers = headersFor(p.key);
    for (const [name, method, path, body] of endpoints()) {
      const res = await call(method, path, body, headers);
      try {
        expectUnauthorized(res);
      } catch (err) {
        throw new Error(`${name}: ${(err as Error).message}`, { cause: err });
      }
    }
    // Nothing was changed by any of those calls.
    const [thread] = await t.dataSource.query('SELECT metadata, deleted_at FROM threads WHERE id = $1', [threadId]);
    expect(thread).toEqual({ metadata: {}, deleted_at: null });
    expect(Number((await t.dataSource.query('SELECT count(*) AS n FROM threads WHERE project_id = $1', [p.projectId]))[0].n)).toBe(1);
  });

  it('the key is checked before the body and the ids: an invalid body or id with a bad key is 401', async () => {
    expectUnauthorized(await t.http().post('/v2/threads').set('X-API-Key', 'wrong').send({ metadata: [] }));
    expectUnauthorized(await t.http().get('/v2/threads/not-a-uuid').set('X-API-Key', 'wrong'));
    expectUnauthorized(await t.http().get('/v2/threads?limit=0'));
  });

  it('Authorization: Bearer <key> works like X-API-Key on every endpoint', async () => {
    const own = await createProject(t);
    const thread = await createThread(t, own);
    const message = await createMessage(t, own, thread.id, 'hi');
    const bearer = { Authorization: `Bearer ${own.key}` };
    const base = `/v2/threads/${thread.id}`;
    const created = await call('post', '/v2/threads', { metadata: { via: 'bearer' } }, bearer);
    expect([created.status, created.body.projectId]).toEqual([200, own.projectId]);
    expect((await call('get', '/v2/threads', undefined, bearer)).body.data).toHaveLength(2);
    expect((await call('get', base, undefined, bearer)).body.id).toBe(thread.id);
    expect((await call('post', base, { metadata: { b: 1 } }, bearer)).body.metadata).toEqual({ b: 1 });
    expect((await call('post', `${base}/messages`, { message: { content: 'x' } }, bearer)).status).toBe(200);
    expect((await call('get', `${base}/messages`, undefined, bearer)).body.data).toHaveLength(2);
    expect((await call('get', `${base}/messages/${message.id}`, undefined, bearer)).body.id).toBe(message.id);
    expect((await call('post', `${base}/messages/${message.id}`, { metadata: { c: 2 } }, bearer)).body.metadata).toEqual({ c: 2 });
    expect((await call('delete', `${base}/messages/${message.id}`, undefined, bearer)).body.deleted).toBe(true);
    expect((await call('delete', base, undefined, bearer)).body.deleted).toBe(true);
    // Case of the scheme does not matter; surrounding spaces of X-API-Key neither.
    expect((await call('get', '/v2/threads', undefined, { Authorization: `bearer ${own.key}` })).status).toBe(200);
    expect((await call('get', '/v2/threads', undefined, { 'X-API-Key': ` ${own.key} ` })).status).toBe(200);
  });

  it('a revoked key gets 401 at once on the instance that revoked it, even right after a successful call', async () => {
    const own = await createProject(t);
    const thread = await createThread(t, own);
    const api = client(t, own.key);
    expect((await api.get(`/v2/threads/${thread.id}`)).status).toBe(200);

    const revoke = await t
      .http()
      .delete(`/v2/workspaces/${own.workspace}/projects/${own.project}/api-keys/${own.keyId}`)
      .set('X-API-Key', TEST_ADMIN_KEY);
    expect(revoke.status).toBe(200);
    expect(revoke.body).toEqual({ id: own.keyId, object: 'api_key.revoked', revoked: true });

    for (const [name, method, path, body] of endpoints()) {
      for (const headers of [{ 'X-API-Key': own.key }, { Authorization: `Bearer ${own.key}` }] as Record<string, string>[]) {
        const res = await call(method, path, body, headers);
        expect([name, res.status, res.body]).toEqual([name, 401, { error: 'Unauthorized', message: 'Invalid API key' }]);
      }
    }
    expectUnauthorized(await api.get(`/v2/threads/${thread.id}`));
    const [row] = await t.dataSource.query('SELECT revoked_at FROM api_keys WHERE id = $1', [own.keyId]);
    expect(row.revoked_at).not.toBeNull();
  });

  it("revoking one key leaves the project's other keys working", async () => {
    const own = await createProject(t);
    const admin = { 'X-API-Key': TEST_ADMIN_KEY };
    const second = await t
      .http()
      .post(`/v2/workspaces/${own.workspace}/projects/${own.project}/api-keys`)
      .set(admin)
      .send({ name: 'second' });
    expect(second.status).toBe(200);
    await t.http().delete(`/v2/workspaces/${own.workspace}/projects/${own.project}/api-keys/${own.keyId}`).set(admin).expect(200);
    expectUnauthorized(await client(t, own.key).get('/v2/threads'));
    expect((await client(t, second.body.key).get('/v2/threads')).status).toBe(200);
  });

  it('the admin key on a project route → 403 (without X-Parley-Project); a project key on an admin route → 403', async () => {
    for (const [, method, path, body] of endpoints()) {
      const res = await call(method, path, body, { 'X-API-Key': TEST_ADMIN_KEY });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'Forbidden', message: 'This endpoint needs a project API key' });
    }
    const adminRoutes: [Method, string, object | undefined][] = [
      ['get', '/v2/workspaces', undefined],
      ['post', '/v2/workspaces', { slug: 'not-created-by-a-project-key' }],
      ['get', `/v2/workspaces/${p.workspace}/projects`, undefined],
      ['post', `/v2/workspaces/${p.workspace}/projects`, { slug: 'not-created-by-a-project-key' }],
    ];
    for (const [method, path, body] of adminRoutes) {
      const res = await call(method, path, body, { 'X-API-Key': p.key });
      expect([path, res.status]).toEqual([path, 403]);
      expect(res.body).toEqual({ error: 'Forbidden', message: 'This endpoint needs the admin API key' });
    }
    // Its own project's keys it may manage (keys:manage: test/project-key-management.e2e-spec.ts); another's are not found.
    const other = await createProject(t);
    const res = await call('get', `/v2/workspaces/${other.workspace}/projects/${other.project}/api-keys`, undefined, {
      'X-API-Key': p.key,
    });
    expect([res.status, res.body]).toEqual([404, { error: { message: 'Project not found' } }]);
    expect((await client(t, p.key).get('/v2/threads')).status).toBe(200);
  });
});
