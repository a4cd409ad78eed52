import { createMessage, createProject, createThread, TestProject } from './support/factories';
import { Client, client, expectResourceError } from './support/http';
import { createTestApp, TestApp } from './support/test-app';

const WEIRD_IDS = [
  "'; DROP TABLE threads; --",
  '1 OR 1=1',
  "' OR '1'='1",
  '1; SELECT pg_sleep(5)',
  'x'.repeat(5000),
  '0'.repeat(300),
  'ñandú-🦜-線程',
  '\u0000',
  '../../etc/passwd',
  '%',
  'null',
  'undefined',
  '-1',
  '1e309',
  '00000000-0000-0000-0000-00000000000g',
  '00000000000000000000000000000000',
];

/** Malformed and SQL-looking ids, odd bodies and sizes: never a 500. */
describe('hostile input on thread and message endpoints', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let threadId: string;
  let messageId: string;

  beforeAll(async () => {
    t = await createTestApp();
    p = await createProject(t);
    api = client(t, p.key);
    threadId = (await createThread(t, p)).id;
    messageId = (await createMessage(t, p, threadId, 'hi')).id;
  });
  afterAll(() => t.close());

  it('weird thread ids → 404 Thread not found on every thread endpoint, and the tables are intact', async () => {
    for (const raw of WEIRD_IDS) {
      const path = `/v2/threads/${encodeURIComponent(raw)}`;
      for (const res of [
        await api.get(path),
        await api.post(path, { metadata: { a: 1 } }),
        await api.delete(path),
        await api.get(`${path}/messages`),
        await api.post(`${path}/messages`, { message: { content: 'x' } }),
      ]) {
        expect([raw.slice(0, 40), res.status, res.body.error?.message]).toEqual([raw.slice(0, 40), 404, 'Thread not found']);
      }
    }
    expect((await api.get(`/v2/threads/${threadId}`)).status).toBe(200);
    const [{ n }] = await t.dataSource.query('SELECT count(*) AS n FROM threads WHERE project_id = $1', [p.projectId]);
    expect(Number(n)).toBe(1);
  });

  it("weird message ids → 404 with each endpoint's message", async () => {
    for (const raw of WEIRD_IDS) {
      const path = `/v2/threads/${threadId}/messages/${encodeURIComponent(raw)}`;
      expectResourceError(await api.get(path), 404, 'Thread not found, message not in thread, or message does not exist');
      expectResourceError(await api.post(path, { metadata: {} }), 404, 'Message not found');
      expectResourceError(await api.delete(path), 404, 'Message not found or does not belong to the proper thread/project');
    }
    expect((await api.get(`/v2/threads/${threadId}/messages/${messageId}`)).status).toBe(200);
  });

  it('weird cursors → 400 Invalid request parameters', async () => {
    for (const raw of WEIRD_IDS) {
      const after = encodeURIComponent(raw);
      expectResourceError(await api.get(`/v2/threads?after=${after}`), 400, 'Invalid request parameters');
      expectResourceError(await api.get(`/v2/threads/${threadId}/messages?after=${after}`), 400, 'Invalid request parameters');
    }
  });

  it('a path that is not valid percent-encoding is a 400 with a JSON body, not a 500', async () => {
    const res = await api.get('/v2/threads/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(typeof res.body.error.message).toBe('string');
  });

  it('no body of any shape answers 500 on any endpoint that takes one', async () => {
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    const bodies: string[] = [
      '',
      ' ',
      '{',
      '}',
      '[]',
      '[[]]',
      'true',
      '0',
      '-0',
      '1e999',
      '"\\u0000"',
      'null',
      '{"a":1}{"b":2}',
      '\u00ff\u00fe',
      '{"metadata":' + deep(100_000) + '}',
      '{"message":{"content":' + deep(100_000) + '}}',
      '{"createLog":{"id":' + deep(100_000) + '}}',
      '{"metadata":{"constructor":{"name":"x"}}}',
      '{"metadata":{"a":"\\ud800"}}',
      '{"metadata":{"a":"\\u0000"}}',
      '{"message":{"content":"\\u0000"}}',
      '{"createLog":{"constructor":{"prototype":{}}}}',
      '{"message":{"content":"x","__proto__":{"role":"system"}}}',
      '{"message":{"content":"x"},"metadata":{"__proto__":{"polluted":true}}}',
      '{"metadata":{"a":1e309}}',
      '{"metadata":{"' + 'k'.repeat(100_000) + '":1}}',
      JSON.stringify({ metadata: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i])) }),
      JSON.stringify({ message: { content: Array.from({ length: 5000 }, () => ({ type: 'text', text: 'x' })) } }),
    ];
    const paths = [
      '/v2/threads',
      `/v2/threads/${threadId}`,
      `/v2/threads/${threadId}/messages`,
      `/v2/threads/${threadId}/messages/${messageId}`,
    ];
    for (const body of bodies) {
      for (const path of paths) {
        const res = await api.postRaw(path, body);
        expect([path, body.slice(0, 60), res.status < 500]).toEqual([path, body.slice(0, 60), true]);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const [thread] = await t.dataSource.query('SELECT metadata FROM threads WHERE id = $1', [threadId]);
    expect(Object.keys(thread.metadata).length).toBeLessThanOrEqual(64);
  });

  it("text PostgreSQL cannot store (U+0000, an unpaired surrogate) → 400 with the endpoint's message; emoji are fine", async () => {
    for (const bad of ['\\u0000', 'a\\ud800', '\\udc00b']) {
      expectResourceError(await api.postRaw('/v2/threads', `{"metadata":{"a":"${bad}"}}`), 400, 'Invalid request body');
      expectResourceError(await api.postRaw('/v2/threads', `{"metadata":{"${bad}":"a"}}`), 400, 'Invalid request body');
      expectResourceError(await api.postRaw('/v2/threads', `{"createLog":{"id":"${bad}"}}`), 400, 'Invalid request body');
      expectResourceError(
        await api.postRaw(`/v2/threads/${threadId}/messages`, `{"message":{"content":"${bad}"}}`),
        400,
        'Invalid request parameters',
      );
      expectResourceError(
        await api.postRaw(`/v2/threads/${threadId}/messages/${messageId}`, `{"metadata":{"a":"${bad}"}}`),
        400,
        'Metadata is required',
      );
    }
    const ok = await api.postRaw('/v2/threads', '{"metadata":{"\\ud83e\\udd9c":"ñandú \\ud83e\\udd9c 線程"}}');
    expect(ok.status).toBe(200);
    expect(ok.body.metadata).toEqual({ '🦜': 'ñandú 🦜 線程' });
    expect((await api.get(`/v2/threads/${ok.body.id}`)).body.metadata).toEqual({ '🦜': 'ñandú 🦜 線程' });
  });

  it('a body over 1 MiB → 413 with a JSON body; just under the limit is read and validated', async () => {
    const sized = (bytes: number) => {
      const shell = JSON.stringify({ metadata: { big: '' } });
      return JSON.stringify({ metadata: { big: 'x'.repeat(bytes - shell.length) } });
    };
    const over = await api.postRaw('/v2/threads', sized(1024 * 1024 + 1));
    expect(over.status).toBe(413);
    expect(over.headers['content-type']).toMatch(/^application\/json/);
    expect(over.body).toEqual({ error: { message: expect.stringMatching(/larger than/) } });
    expectResourceError(await api.postRaw(`/v2/threads/${threadId}/messages`, sized(2 * 1024 * 1024)), 413, over.body.error.message);
    // Under the limit the body is parsed: the 512-character rule answers, not the size limit.
    expectResourceError(await api.postRaw('/v2/threads', sized(1024 * 1024 - 16)), 400, 'Invalid request body');
  });

  it('a body in an unsupported charset or a broken encoding → 4xx with a JSON body', async () => {
    const post = () => t.http().post('/v2/threads').set('X-API-Key', p.key);
    for (const res of [
      await post().set('Content-Type', 'application/json; charset=latin1').send('{}'),
      await post().set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send('not gzip'),
      await post().set('Content-Type', 'application/json').set('Content-Encoding', 'compress').send('{}'),
    ]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(typeof res.body.error.message).toBe('string');
    }
  });

  it('an unknown route → 404 with a JSON body, with or without a key', async () => {
    for (const req of [
      api.get('/v2/nothing-here'),
      t.http().get('/v2/threads/a/b/c/d'),
      t.http().put('/v2/threads'),
      api.delete('/v2/threads'),
    ]) {
      const res = await req;
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(typeof res.body.error.message).toBe('string');
    }
  });
});
