import {
  FakeUpstream,
  openaiChunks,
  openaiCompletion,
  openaiError,
  openaiJson,
  openaiStream,
  startFakeOpenAIUpstream,
} from './fakes/fake-openai-upstream';
import { createProject, createThread, TestProject } from './support/factories';
import { Client, client } from './support/http';
import {
  addProviderCredential,
  deploy,
  INVOKE_APP_ENV,
  invokePath,
  listen,
  requestLogRows,
  sleep,
  threadMessageRows,
} from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

const TIMEOUT_MS = 600;
const RETRIES = 2;

/** Provider failures as the caller sees them (decisions.md "Provider failures", "Retries"). */
describe('invoke: provider failures, retries and timeouts', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let baseUrl: string;
  let fake: FakeUpstream;
  let path: string;

  const user = (content: string) => ({ role: 'user', content });
  const upstreamSince = (count: number) => fake.requests.slice(count);
  const lastLog = async () => (await requestLogRows(t, p.projectId)).pop()!;

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    // The provider settings are server configuration: short here, so a silent upstream fails fast.
    t = await createTestApp({ ...INVOKE_APP_ENV, PROVIDER_TIMEOUT_MS: String(TIMEOUT_MS), PROVIDER_MAX_RETRIES: String(RETRIES) });
    baseUrl = await listen(t);
    p = await createProject(t);
    api = client(t, p.key);
    await addProviderCredential(t, p, { name: 'upstream', type: 'openai', baseUrl: fake.url, apiKey: 'sk-f' });
    await addProviderCredential(t, p, { name: 'nowhere', type: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-n' });
    await deploy(t, p, { slug: 'remote', kind: 'assistant', provider: 'upstream', model: 'gpt-f' });
    await deploy(t, p, { slug: 'unreachable', kind: 'prompt', provider: 'nowhere', model: 'gpt-n' });
    path = invokePath(p, 'remote');
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('retries a 500, then answers 502 naming the upstream status, leaving the thread as it was and logging the failure', async () => {
    const thread = await createThread(t, p);
    await api.post(path, { threadId: thread.id, messages: [user('kept')] }).expect(200);
    const before = await threadMessageRows(t, p.projectId, thread.id);
    const count = fake.requests.length;
    fake.setNext(openaiError(500, 'boom'), openaiError(500, 'boom'), openaiError(500, 'boom'));
    const res = await api.post(path, { threadId: thread.id, messages: [user('lost')] });
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ error: 'Bad Gateway', message: 'openai upstream answered 500: boom' });
    expect(res.headers['x-parley-thread-id']).toBe(thread.id);
    expect(upstreamSince(count)).toHaveLength(1 + RETRIES);
    expect(await threadMessageRows(t, p.projectId, thread.id)).toEqual(before);
    const log = await lastLog();
    expect(log).toMatchObject({
      status: 502,
      error: 'openai upstream answered 500: boom',
      thread_id: thread.id,
      provider_name: 'upstream',
      model: 'gpt-f',
    });
    const fromApi = await api.get(`/v2/logs/${log.id}`).expect(200);
    expect(fromApi.body).toMatchObject({ status: 502, error: 'openai upstream answered 500: boom' });
  });

  it('creates no thread when the first call of a new one fails, and names none in a header (issue 13: no dangling thread id)', async () => {
    const threadsBefore: Array<{ n: string }> = await t.dataSource.query('SELECT count(*)::text AS n FROM threads WHERE project_id = $1', [
      p.projectId,
    ]);
    fake.setNext(openaiError(503, 'down'), openaiError(503, 'down'), openaiError(503, 'down'));
    const res = await api.post(path, { messages: [user('nobody hears')] });
    expect(res.status).toBe(502);
    expect(res.headers['x-parley-thread-id']).toBeUndefined();
    expect(res.headers['x-langtail-thread-id']).toBeUndefined();
    const threadsAfter: Array<{ n: string }> = await t.dataSource.query('SELECT count(*)::text AS n FROM threads WHERE project_id = $1', [
      p.projectId,
    ]);
    expect(threadsAfter).toEqual(threadsBefore);
    expect((await lastLog()).thread_id).toBeNull();
  });

  it('waits out a 429 with Retry-After: 1 and answers 200 from the retry', async () => {
    const count = fake.requests.length;
    fake.setNext(openaiError(429, 'slow down', { 'Retry-After': '1' }), openaiJson(openaiCompletion({ content: 'after the wait' })));
    const started = Date.now();
    const res = await api.post(path, { messages: [user('patience')] }).expect(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(res.body.choices[0].message.content).toBe('after the wait');
    const [first, second] = upstreamSince(count);
    expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(950);
    expect((await lastLog()).status).toBe(200);
  });

  it('answers 429 at once, with Retry-After, when the upstream asks for a longer wait than Parley will hold a call', async () => {
    const count = fake.requests.length;
    fake.setNext(openaiError(429, 'quota', { 'Retry-After': '120' }));
    const started = Date.now();
    const res = await api.post(path, { messages: [user('x')] });
    expect(Date.now() - started).toBeLessThan(900);
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('120');
    expect(res.body).toEqual({ error: 'Too Many Requests', message: 'openai upstream answered 429: quota' });
    expect(upstreamSince(count)).toHaveLength(1);
  });

  it('answers 504 when the upstream never answers, after PROVIDER_TIMEOUT_MS per attempt', async () => {
    const thread = await createThread(t, p);
    const count = fake.requests.length;
    fake.setNext({ type: 'hang' }, { type: 'hang' }, { type: 'hang' });
    const started = Date.now();
    const res = await api.post(path, { threadId: thread.id, messages: [user('hello?')] });
    const elapsed = Date.now() - started;
    expect(res.status).toBe(504);
    expect(res.body).toEqual({ error: 'Gateway Timeout', message: 'openai upstream did not answer in time' });
    expect(upstreamSince(count)).toHaveLength(1 + RETRIES);
    expect(elapsed).toBeGreaterThanOrEqual((1 + RETRIES) * TIMEOUT_MS);
    expect(elapsed).toBeLessThan(15_000);
    for (const attempt of upstreamSince(count)) {
      await attempt.closed;
      expect(attempt.closedEarly).toBe(true);
    }
    expect(await threadMessageRows(t, p.projectId, thread.id)).toEqual([]);
    expect(await lastLog()).toMatchObject({ status: 504, error: 'openai upstream did not answer in time', thread_id: thread.id });
  });

  it("answers 502 when the provider key is refused (it is the operator's problem) or the upstream is unreachable", async () => {
    fake.setNext(openaiError(401, 'bad key'));
    const refused = await api.post(path, { messages: [user('x')] });
    expect([refused.status, refused.body]).toEqual([502, { error: 'Bad Gateway', message: 'openai upstream answered 401: bad key' }]);
    const unreachable = await api.post(invokePath(p, 'unreachable'), {});
    expect(unreachable.status).toBe(502);
    expect(unreachable.body).toEqual({ error: 'Bad Gateway', message: expect.stringMatching(/^openai upstream unreachable/) });
    expect(unreachable.headers['x-parley-thread-id']).toBeUndefined();
    expect(await lastLog()).toMatchObject({ status: 502, prompt_slug: 'unreachable', thread_id: null });
  });

  it('answers 400 when the upstream rejects the request, without retrying', async () => {
    const count = fake.requests.length;
    fake.setNext(openaiError(422, 'unsupported parameter'));
    const res = await api.post(path, { messages: [user('x')] });
    expect([res.status, res.body]).toEqual([400, { error: 'Bad Request', message: 'openai upstream answered 422: unsupported parameter' }]);
    expect(upstreamSince(count)).toHaveLength(1);
  });

  it('ends a stream that stalls mid-way with one error event after PROVIDER_TIMEOUT_MS of silence (504), appending nothing', async () => {
    const thread = await createThread(t, p);
    fake.setNext(openaiStream(openaiChunks({ content: ['half ', 'way'] }).slice(0, 3), { keepOpen: true }));
    const started = Date.now();
    const res = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'X-API-Key': p.key },
      body: JSON.stringify({ stream: true, threadId: thread.id, messages: [user('x')] }),
    });
    const events = (await res.text()).split('\n\n').filter(Boolean);
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(events).toHaveLength(4);
    expect(JSON.parse(events[3].slice('data: '.length))).toEqual({
      error: { message: `openai upstream sent nothing for ${TIMEOUT_MS} ms`, type: 'Gateway Timeout', status: 504 },
    });
    expect(await threadMessageRows(t, p.projectId, thread.id)).toEqual([]);
    expect(await lastLog()).toMatchObject({ status: 504, stream: true, thread_id: thread.id });
  });

  it('answers 404 {error: "Thread not found"} when the thread is deleted while the provider works, and still logs the call', async () => {
    const thread = await createThread(t, p);
    const count = fake.requests.length;
    fake.setNext(openaiError(429, 'wait', { 'Retry-After': '1' }), openaiJson(openaiCompletion({ content: 'too late' })));
    const pending = api.post(path, { threadId: thread.id, messages: [user('are you there?')] }).then((r) => r);
    await fake.waitForRequests(count + 1);
    await api.delete(`/v2/threads/${thread.id}`).expect(200);
    const res = await pending;
    expect([res.status, res.body]).toEqual([404, { error: 'Thread not found' }]);
    expect(upstreamSince(count)).toHaveLength(2);
    expect(await threadMessageRows(t, p.projectId, thread.id)).toEqual([]);
    expect(await lastLog()).toMatchObject({ status: 404, error: 'Thread not found', thread_id: thread.id });
  });

  it('ends a stream with a 404 error event when its thread is deleted before the reply could be stored', async () => {
    const thread = await createThread(t, p);
    fake.setNext(openaiStream(openaiChunks({ content: ['slow ', 'reply'] }), { delayMs: 150 }));
    const res = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'X-API-Key': p.key },
      body: JSON.stringify({ stream: true, threadId: thread.id, messages: [user('x')] }),
    });
    await api.delete(`/v2/threads/${thread.id}`).expect(200);
    const events = (await res.text()).split('\n\n').filter(Boolean);
    expect(JSON.parse(events[events.length - 1].slice('data: '.length))).toEqual({
      error: { message: 'Thread not found', type: 'Not Found', status: 404 },
    });
    expect(events.join()).not.toContain('[DONE]');
    expect(await threadMessageRows(t, p.projectId, thread.id)).toEqual([]);
    expect(await lastLog()).toMatchObject({ status: 404, stream: true, error: 'Thread not found' });
  });

  it('aborts the upstream call when the client of a non-streamed call goes away, and logs 499', async () => {
    const thread = await createThread(t, p);
    const count = fake.requests.length;
    fake.setNext({ type: 'hang' });
    const abort = new AbortController();
    const pending = fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'X-API-Key': p.key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ threadId: thread.id, messages: [user('never mind')] }),
      signal: abort.signal,
    }).then(
      () => 'answered',
      (err: Error) => err.name,
    );
    await fake.waitForRequests(count + 1);
    abort.abort();
    expect(await pending).toBe('AbortError');
    await fake.requests[count].closed;
    expect(fake.requests[count].closedEarly).toBe(true);
    let log = await lastLog();
    for (let i = 0; i < 100 && log.status !== 499; i++) {
      await sleep(20);
      log = await lastLog();
    }
    expect(log).toMatchObject({ status: 499, thread_id: thread.id });
    expect(fake.requests).toHaveLength(count + 1);
    expect(await threadMessageRows(t, p.projectId, thread.id)).toEqual([]);
  });
});
