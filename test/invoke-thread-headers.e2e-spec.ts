import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { Stream } from 'openai/streaming';

import { createProject, createThread, TestProject } from './support/factories';
import { Client, client, UUID } from './support/http';
import {
  deploy,
  failNextTurnWrite,
  INVOKE_APP_ENV,
  invokePath,
  listen,
  requestLogRows,
  threadMessageRows,
} from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/**
 * Issue 13 (a streamed reply whose storing fails on a database that is down ends with a 503 event)
 * and issue 11 (x-langtail-thread-id beside x-parley-thread-id, for the langtail SDK).
 */
describe('invoke: thread headers and storing failures', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let baseUrl: string;

  const user = (content: string) => ({ role: 'user', content });
  const post = (path: string, body: object) =>
    fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'X-API-Key': p.key, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    baseUrl = await listen(t);
    p = await createProject(t);
    api = client(t, p.key);
    await deploy(t, p, { slug: 'helper', kind: 'assistant' });
    await deploy(t, p, { slug: 'plain' });
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  it('sends x-langtail-thread-id with the value of x-parley-thread-id, streamed or not, new or continued thread', async () => {
    const created = await api.post(invokePath(p, 'helper'), { messages: [user('hello')] }).expect(200);
    const threadId = created.headers['x-parley-thread-id'];
    expect(threadId).toMatch(UUID);
    expect(created.headers['x-langtail-thread-id']).toBe(threadId);

    const thread = await createThread(t, p);
    const streamed = await post(invokePath(p, 'helper'), { threadId: thread.id, stream: true, messages: [user('again')] });
    expect(streamed.headers.get('x-parley-thread-id')).toBe(thread.id);
    expect(streamed.headers.get('x-langtail-thread-id')).toBe(thread.id);
    await streamed.text();

    const prompt = await api.post(invokePath(p, 'plain'), { messages: [user('no thread')] }).expect(200);
    expect(prompt.headers['x-parley-thread-id']).toBeUndefined();
    expect(prompt.headers['x-langtail-thread-id']).toBeUndefined();
  });

  it('ends a streamed reply with a 503 "Database unavailable" event when the database is down as the reply is stored', async () => {
    const thread = await createThread(t, p);
    const logsBefore = (await requestLogRows(t, p.projectId)).length;
    // What node-postgres throws when the server goes away mid-query, inside the reply's transaction.
    failNextTurnWrite();
    const res = await post(invokePath(p, 'helper'), { threadId: thread.id, stream: true, messages: [user('lost words')] });
    expect(res.status).toBe(200);
    const events = (await res.text()).split('\n\n').filter(Boolean);
    expect(events).not.toContain('data: [DONE]');
    expect(JSON.parse(events[events.length - 1].slice('data: '.length))).toEqual({
      error: { message: 'Database unavailable', type: 'Service Unavailable', status: 503 },
    });
    // The chunks before the error were the reply, as the openai SDK reads them.
    const chunks: ChatCompletionChunk[] = [];
    const replay = new Response(
      events
        .slice(0, -1)
        .map((e) => `${e}\n\n`)
        .join('') + 'data: [DONE]\n\n',
    );
    for await (const chunk of Stream.fromSSEResponse<ChatCompletionChunk>(replay, new AbortController())) chunks.push(chunk);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('lost words');
    expect(await threadMessageRows(t, p.projectId, thread.id)).toEqual([]);
    expect((await requestLogRows(t, p.projectId)).length).toBe(logsBefore);
  });
});
