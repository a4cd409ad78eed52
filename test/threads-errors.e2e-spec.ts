import { createProject, createThread, TestProject } from './support/factories';
import { Client, client, expectResourceError } from './support/http';
import { MISSING_METADATA_BODIES } from './support/spec-bad-inputs';
import { createTestApp, TestApp } from './support/test-app';

/** Threads: every documented error message with its status (DESIGN §3: 400 invalid, 404 not found). */
describe('thread errors', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let other: TestProject;
  let otherThreadId: string;
  let deletedThreadId: string;

  beforeAll(async () => {
    t = await createTestApp();
    p = await createProject(t);
    api = client(t, p.key);
    other = await createProject(t);
    otherThreadId = (await createThread(t, other)).id;
    deletedThreadId = (await createThread(t, p)).id;
    await api.delete(`/v2/threads/${deletedThreadId}`).expect(200);
  });
  afterAll(() => t.close());

  const countThreads = async () =>
    Number((await t.dataSource.query('SELECT count(*) AS n FROM threads WHERE project_id = $1', [p.projectId]))[0].n);

  describe('create: Invalid request body', () => {
    const tooManyKeys = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i]));
    const invalidBodies: [string, unknown][] = [
      ['65 metadata keys', { metadata: tooManyKeys }],
      ['a 513-character value', { metadata: { a: 'x'.repeat(513) } }],
      ['a 65-character key', { metadata: { ['k'.repeat(65)]: 1 } }],
      ['an empty key', { metadata: { '': 1 } }],
      ['a nested object value', { metadata: { a: { b: 1 } } }],
      ['an array value', { metadata: { a: [1] } }],
      ['a boolean value', { metadata: { a: true } }],
      ['a null value', { metadata: { a: null } }],
      ['metadata an array', { metadata: ['a'] }],
      ['metadata a string', { metadata: 'a=1' }],
      ['metadata a number', { metadata: 7 }],
      ['an unknown top-level field', { metadata: {}, title: 'x' }],
      ['a top-level field named like an object method', { toString: 'x' }],
      ['an unknown createLog field', { createLog: { id: 'x', colour: 'red' } }],
      ['a createLog field named like an object method', { createLog: { constructor: 'x' } }],
      ['a createLog string field of the wrong type', { createLog: { id: 42 } }],
      ['a createLog boolean field of the wrong type', { createLog: { stream: 'yes' } }],
      ['createLog startedAt not a date-time', { createLog: { startedAt: 'yesterday' } }],
      ['createLog an array', { createLog: [] }],
      ['createLog a string', { createLog: 'log' }],
      ['createLog with a nested {constructor} value', { createLog: { id: { constructor: 'x' } } }],
    ];
    it.each(invalidBodies)('%s → 400', async (_label, body) => {
      const before = await countThreads();
      const res = await api.post('/v2/threads', body);
      expectResourceError(res, 400, 'Invalid request body');
      expect(await countThreads()).toBe(before);
    });

    it('names what is wrong in error.details', async () => {
      const res = await api.post('/v2/threads', { metadata: { a: { b: 1 } }, createLog: { colour: 'red' } });
      expect(res.body.error.details).toEqual(
        expect.arrayContaining(['metadata.a must be a string or a number', 'createLog.colour: unknown field']),
      );
    });

    it.each([
      ['malformed JSON', '{"metadata": {'],
      ['a JSON array', '[{"metadata": {}}]'],
      ['a JSON string', '"metadata"'],
      ['a JSON number', '42'],
      ['JSON null', 'null'],
      ['a __proto__ key at the top level', '{"__proto__": {"metadata": {}}}'],
      ['a __proto__ metadata key', '{"metadata": {"__proto__": "x"}}'],
    ])('%s → 400', async (_label, raw) => {
      expectResourceError(await api.postRaw('/v2/threads', raw), 400, 'Invalid request body');
    });

    it('a form-encoded or plain-text body → 400 (the API speaks JSON only)', async () => {
      expectResourceError(
        await t.http().post('/v2/threads').set('X-API-Key', p.key).type('form').send('metadata=1'),
        400,
        'Invalid request body',
      );
      expectResourceError(
        await t.http().post('/v2/threads').set('X-API-Key', p.key).set('Content-Type', 'text/plain').send('hi'),
        400,
        'Invalid request body',
      );
    });
  });

  describe('update: Metadata is required', () => {
    let id: string;
    beforeAll(async () => (id = (await createThread(t, p, { metadata: { stay: 'put' } })).id));

    it.each(MISSING_METADATA_BODIES)('%s → 400', async (_label, body) => {
      expectResourceError(await api.post(`/v2/threads/${id}`, body), 400, 'Metadata is required');
    });

    it.each([
      ['malformed JSON', '{"metadata":'],
      ['a JSON array', '[]'],
      ['JSON null', 'null'],
    ])('%s → 400', async (_label, raw) => {
      expectResourceError(await api.postRaw(`/v2/threads/${id}`, raw), 400, 'Metadata is required');
    });

    it('metadata breaking the limits or an unknown field → 400 Invalid request body; nothing changes', async () => {
      expectResourceError(await api.post(`/v2/threads/${id}`, { metadata: { a: 'x'.repeat(513) } }), 400, 'Invalid request body');
      expectResourceError(await api.post(`/v2/threads/${id}`, { metadata: { a: { b: 1 } } }), 400, 'Invalid request body');
      expectResourceError(await api.post(`/v2/threads/${id}`, { metadata: {}, createLog: {} }), 400, 'Invalid request body');
      expect((await api.get(`/v2/threads/${id}`)).body.metadata).toEqual({ stay: 'put' });
    });

    it('the body is checked before the thread is looked up', async () => {
      expectResourceError(await api.post('/v2/threads/not-a-thread', {}), 400, 'Metadata is required');
    });
  });

  describe('Thread not found', () => {
    const unknownIds = () => [
      ['an unknown uuid', '01990000-0000-7000-8000-000000000000'],
      ['a deleted thread', deletedThreadId],
      ["another project's thread", otherThreadId],
      ['a malformed id', 'not-a-uuid'],
      ['a uuid with braces', '{01990000-0000-7000-8000-000000000000}'],
    ];
    it('get, update, delete, create-message and list-messages → 404 for each kind of unknown id', async () => {
      for (const [label, id] of unknownIds()) {
        const path = `/v2/threads/${encodeURIComponent(id)}`;
        const results = {
          get: await api.get(path),
          update: await api.post(path, { metadata: { a: 1 } }),
          delete: await api.delete(path),
          createMessage: await api.post(`${path}/messages`, { message: { content: 'hi' } }),
          listMessages: await api.get(`${path}/messages`),
        };
        for (const [endpoint, res] of Object.entries(results)) {
          try {
            expectResourceError(res, 404, 'Thread not found');
          } catch (err) {
            throw new Error(`${endpoint} with ${label}: ${(err as Error).message}`, { cause: err });
          }
        }
      }
      const [row] = await t.dataSource.query('SELECT deleted_at, metadata FROM threads WHERE id = $1', [otherThreadId]);
      expect(row).toEqual({ deleted_at: null, metadata: {} });
    });
  });

  describe('list: Invalid request parameters', () => {
    it.each([
      'limit=0',
      'limit=101',
      'limit=abc',
      'limit=1.5',
      'limit=-1',
      'limit=',
      'limit=1e2',
      'limit=1&limit=2',
      'after=nope',
      'after=',
      'after=a&after=b',
    ])('?%s → 400', async (query) => {
      expectResourceError(await api.get(`/v2/threads?${query}`), 400, 'Invalid request parameters');
    });

    it('after naming a thread of another project, or an unknown uuid → 400', async () => {
      expectResourceError(await api.get(`/v2/threads?after=${otherThreadId}`), 400, 'Invalid request parameters');
      expectResourceError(await api.get('/v2/threads?after=01990000-0000-7000-8000-000000000000'), 400, 'Invalid request parameters');
    });

    it('limit=1 and limit=100 are accepted; unknown query fields are ignored', async () => {
      expect((await api.get('/v2/threads?limit=1')).body.data).toHaveLength(1);
      expect((await api.get('/v2/threads?limit=100&utm_source=x')).status).toBe(200);
    });
  });
});
