import { APIError } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { Stream } from 'openai/streaming';

import { FakeUpstream, openaiChunks, openaiError, openaiStream, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, createThread, TestProject } from './support/factories';
import { Client, client, UUID } from './support/http';
import {
  addProviderCredential,
  deploy,
  INVOKE_APP_ENV,
  invokePath,
  listen,
  openaiClient,
  requestLogRows,
  sleep,
  threadMessageRows,
} from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/** DESIGN §4.7: `stream: true` answers text/event-stream in the chat.completion.chunk format. */
describe('invoke: streaming', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let baseUrl: string;
  let fake: FakeUpstream;

  const user = (content: string) => ({ role: 'user', content });
  /** A streamed invoke through fetch, as any HTTP client would send it. */
  const post = (path: string, body: object, signal?: AbortSignal) =>
    fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'X-API-Key': p.key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true }),
      signal,
    });
  /** The chunks as the openai SDK's own SSE reader parses them. */
  const sdkChunks = async (res: Response) => {
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of Stream.fromSSEResponse<ChatCompletionChunk>(res, new AbortController())) chunks.push(chunk);
    return chunks;
  };
  const text = (chunks: ChatCompletionChunk[]) => chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
  const logsOf = async (threadId: string) => (await requestLogRows(t, p.projectId)).filter((l) => l.thread_id === threadId);
  async function waitFor<T>(what: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await what();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await sleep(20);
    }
  }

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    t = await createTestApp(INVOKE_APP_ENV);
    baseUrl = await listen(t);
    p = await createProject(t);
    api = client(t, p.key);
    await addProviderCredential(t, p, { name: 'upstream', type: 'openai', baseUrl: fake.url, apiKey: 'sk-s' });
    await deploy(t, p, { slug: 'local', kind: 'assistant' });
    await deploy(t, p, { slug: 'remote', kind: 'assistant', provider: 'upstream', model: 'gpt-s' });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('streams chunks the openai SDK reads, ends with [DONE], then appends the reply and logs time to first token', async () => {
    const res = await post(invokePath(p, 'local'), { messages: [user('streamed words arrive one by one')] });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const threadId = res.headers.get('x-parley-thread-id')!;
    expect(threadId).toMatch(UUID);
    const raw = await res.clone().text();
    expect(raw.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(
      raw
        .split('\n\n')
        .filter(Boolean)
        .every((event) => event.startsWith('data: ')),
    ).toBe(true);
    const chunks = await sdkChunks(res);
    expect(chunks.length).toBeGreaterThanOrEqual(7);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ object: 'chat.completion.chunk', id: chunks[0].id, model: 'echo', created: expect.any(Number) });
    }
    expect(text(chunks)).toBe('streamed words arrive one by one');
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('stop');

    const rows = await threadMessageRows(t, p.projectId, threadId);
    const [log] = await logsOf(threadId);
    expect(rows.map((r) => [r.content, r.request_log_id])).toEqual([
      [[user('streamed words arrive one by one')], log.id],
      [[{ role: 'assistant', content: 'streamed words arrive one by one' }], log.id],
    ]);
    expect(log).toMatchObject({ status: 200, stream: true, error: null, completion_tokens: 6 });
    expect(log.ttft_ms).toEqual(expect.any(Number));
    expect(log.ttft_ms).toBeLessThanOrEqual(log.latency_ms);
    const thread = await api.get(`/v2/threads/${threadId}`).expect(200);
    expect(thread.body.createLog).toMatchObject({ id: log.id, stream: true, threadId });
  });

  it('streams from an OpenAI-compatible upstream through the official SDK client, continuing a thread', async () => {
    const thread = await createThread(t, p);
    fake.setNext(openaiStream(openaiChunks({ content: ['Hel', 'lo ', 'there'] })));
    const sdk = openaiClient(baseUrl, p, 'remote');
    const { data: stream, response } = await sdk.chat.completions
      .create({ model: 'gpt-s', messages: [{ role: 'user', content: 'hi' }], stream: true, threadId: thread.id } as never)
      .withResponse();
    expect(response.headers.get('x-parley-thread-id')).toBe(thread.id);
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream as unknown as AsyncIterable<ChatCompletionChunk>) chunks.push(chunk);
    expect(text(chunks)).toBe('Hello there');
    // Parley asks its upstream for usage; the usage-only chunk is not passed on.
    expect(fake.requests[fake.requests.length - 1].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(chunks.every((c) => c.choices.length === 1)).toBe(true);
    const rows = await threadMessageRows(t, p.projectId, thread.id);
    expect(rows.map((r) => r.content)).toEqual([[user('hi')], [{ role: 'assistant', content: 'Hello there' }]]);
    const [log] = await logsOf(thread.id);
    expect(log).toMatchObject({ status: 200, prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 });
  });

  it('streams a deployed prompt without a thread header, honouring max_tokens (finish_reason length), also on /project-prompt', async () => {
    await deploy(t, p, { slug: 'plain', template: [{ role: 'system', content: 'Echo.' }] });
    for (const path of [invokePath(p, 'plain'), '/project-prompt/plain/production?v=']) {
      const res = await post(path, { max_tokens: 3, messages: [user('one two three four five')] });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-parley-thread-id')).toBeNull();
      const chunks = await sdkChunks(res);
      expect(text(chunks)).toBe('one two three');
      expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('length');
    }
    const logs = (await requestLogRows(t, p.projectId)).filter((l) => l.prompt_slug === 'plain');
    expect(logs.map((l) => [l.status, l.stream, l.thread_id, l.completion_tokens])).toEqual([
      [200, true, null, 3],
      [200, true, null, 3],
    ]);
    expect(
      await t.dataSource.query("SELECT count(*)::int AS n FROM threads WHERE project_id = $1 AND create_log->>'promptSlug' = $2", [
        p.projectId,
        'plain',
      ]),
    ).toEqual([{ n: 0 }]);
  });

  it('aborts the upstream call when the client disconnects mid-stream: nothing appended, the log says 499', async () => {
    const thread = await createThread(t, p);
    await api.post(invokePath(p, 'local'), { threadId: thread.id, messages: [user('before')] }).expect(200);
    const before = await threadMessageRows(t, p.projectId, thread.id);
    fake.setNext(openaiStream(openaiChunks({ content: Array.from({ length: 40 }, (_, i) => `w${i} `) }), { delayMs: 100 }));
    const upstreamCount = fake.requests.length;
    const abort = new AbortController();
    const res = await post(invokePath(p, 'remote'), { threadId: thread.id, messages: [user('cut me off')] }, abort.signal);
    // The headers, thread id included, arrived while the upstream was still streaming.
    expect(res.status).toBe(200);
    expect(res.headers.get('x-parley-thread-id')).toBe(thread.id);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toMatch(/^data: /);
    abort.abort();
    const upstream = fake.requests[upstreamCount];
    await upstream.closed;
    expect(upstream.closedEarly).toBe(true);
    const log = await waitFor(async () => (await logsOf(thread.id)).find((l) => l.status === 499));
    expect(log).toMatchObject({ stream: true, error: expect.stringMatching(/cancel/i) });
    expect(log.latency_ms).toBeLessThan(3000);
    await sleep(300);
    expect(await threadMessageRows(t, p.projectId, thread.id)).toEqual(before);
  });

  it('aborts the upstream call when the client leaves before the first chunk, logging 499', async () => {
    const thread = await createThread(t, p);
    fake.setNext(openaiStream(openaiChunks({ content: ['late'] }), { delayMs: 3000 }));
    const upstreamCount = fake.requests.length;
    const abort = new AbortController();
    const pending = post(invokePath(p, 'remote'), { threadId: thread.id, messages: [user('gone')] }, abort.signal).then(
      () => 'answered',
      (err: Error) => err.name,
    );
    await fake.waitForRequests(upstreamCount + 1);
    abort.abort();
    expect(await pending).toBe('AbortError');
    await fake.requests[upstreamCount].closed;
    expect(fake.requests[upstreamCount].closedEarly).toBe(true);
    const log = await waitFor(async () => (await logsOf(thread.id)).find((l) => l.status === 499));
    expect(log).toMatchObject({ stream: true, ttft_ms: null });
    expect(await threadMessageRows(t, p.projectId, thread.id)).toEqual([]);
  });

  it('ends with one error event after an upstream failure mid-stream, and appends nothing', async () => {
    const thread = await createThread(t, p);
    fake.setNext(openaiStream(openaiChunks({ content: ['partial ', 'answer'] }).slice(0, 3), { dropConnection: true }));
    const res = await post(invokePath(p, 'remote'), { threadId: thread.id, messages: [user('x')] });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-parley-thread-id')).toBe(thread.id);
    const raw = await res.clone().text();
    const events = raw.split('\n\n').filter(Boolean);
    expect(events.slice(0, 3).map((e) => JSON.parse(e.slice(6)).object)).toEqual(Array(3).fill('chat.completion.chunk'));
    expect(events).toHaveLength(4);
    const error = JSON.parse(events[3].slice(6));
    expect(Object.keys(error)).toEqual(['error']);
    expect(error.error).toEqual({ message: expect.stringMatching(/^openai upstream/), type: 'Bad Gateway', status: 502 });
    expect(raw).not.toContain('[DONE]');
    // The SDK's reader turns that event into an APIError after the chunks it got.
    const seen: ChatCompletionChunk[] = [];
    await expect(
      (async () => {
        for await (const chunk of Stream.fromSSEResponse<ChatCompletionChunk>(res, new AbortController())) seen.push(chunk);
      })(),
    ).rejects.toBeInstanceOf(APIError);
    expect(text(seen)).toBe('partial answer');
    expect(await threadMessageRows(t, p.projectId, thread.id)).toEqual([]);
    const [log] = await logsOf(thread.id);
    expect(log).toMatchObject({ status: 502, stream: true, error: error.error.message });
  });

  it('forwards an error event of the upstream stream the same way', async () => {
    const thread = await createThread(t, p);
    const chunks = openaiChunks({ content: ['so far'] }).slice(0, 2);
    fake.setNext(openaiStream([...chunks, { error: { message: 'model overloaded', type: 'server_error' } }]));
    const res = await post(invokePath(p, 'remote'), { threadId: thread.id, messages: [user('x')] });
    const events = (await res.text()).split('\n\n').filter(Boolean);
    expect(JSON.parse(events[events.length - 1].slice(6)).error.message).toMatch(/model overloaded/);
    expect(await threadMessageRows(t, p.projectId, thread.id)).toEqual([]);
  });

  it('answers a failure before the first chunk as a plain JSON error, naming no thread that was never created', async () => {
    fake.setNext(openaiError(400, 'context too long'));
    const res = await post(invokePath(p, 'remote'), { messages: [user('x')] });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    // Issue 13: a failed first call creates no thread, so no header may name one.
    expect(res.headers.get('x-parley-thread-id')).toBeNull();
    expect(res.headers.get('x-langtail-thread-id')).toBeNull();
    expect(await res.json()).toEqual({ error: 'Bad Request', message: 'openai upstream answered 400: context too long' });
    expect((await requestLogRows(t, p.projectId)).at(-1)).toMatchObject({ status: 400, prompt_slug: 'remote', thread_id: null });
  });
});
