import { FakeUpstream, openaiCompletion, openaiJson, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createMessage, createProject, createThread, TestProject } from './support/factories';
import { Client, client, expectIsoDateTime, UUID } from './support/http';
import {
  addProviderCredential,
  deploy,
  INVOKE_APP_ENV,
  invokePath,
  listen,
  requestLogRows,
  threadMessageRows,
} from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/** The spec's request-log object fields (createLog): strings, three booleans, startedAt. */
const LOG_STRING_FIELDS = [
  'id',
  'url',
  'metadata',
  'promptId',
  'threadId',
  'projectId',
  'requestIP',
  'variables',
  'parameters',
  'promptSlug',
  'environment',
  'providerKeyId',
  'projectSlug',
  'requestData',
  'deploymentId',
  'organizationId',
  'projectAPIKeyId',
  'organizationSlug',
  'deploymentVersion',
  'promptHistoryHash',
  'providerOrganization',
];
const LOG_FIELDS = [...LOG_STRING_FIELDS, 'stream', 'assistant', 'doNotRecord', 'startedAt'].sort();

/** Endpoint 1, Invoke Assistant: threads created, continued and recorded (DESIGN §4.6). */
describe('invoke: assistants and their threads', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let fake: FakeUpstream;
  let path: string;

  const user = (content: string) => ({ role: 'user', content });
  const reply = (content: string) => ({ role: 'assistant', content });

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    t = await createTestApp(INVOKE_APP_ENV);
    await listen(t);
    p = await createProject(t);
    api = client(t, p.key);
    await addProviderCredential(t, p, { name: 'upstream', type: 'openai', baseUrl: fake.url, apiKey: 'sk-a' });
    await deploy(t, p, { slug: 'helper', kind: 'assistant', template: [{ role: 'system', content: 'Help with {{topic}}.' }] });
    await deploy(t, p, {
      slug: 'remote',
      kind: 'assistant',
      provider: 'upstream',
      model: 'gpt-a',
      template: [{ role: 'system', content: 'Be kind.' }],
    });
    path = invokePath(p, 'helper');
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it("creates a thread when no threadId is given, announces it in x-parley-thread-id, with this call's log as createLog", async () => {
    const res = await api
      .post(path, { variables: { topic: 'tea' }, messages: [user('first question')], metadata: { ticket: 'T-1', n: 3 } })
      .expect(200);
    const threadId = res.headers['x-parley-thread-id'];
    expect(threadId).toMatch(UUID);
    expect(res.body.choices[0].message).toEqual(reply('first question'));

    const thread = await api.get(`/v2/threads/${threadId}`).expect(200);
    expect(thread.body).toMatchObject({ id: threadId, projectId: p.projectId, metadata: {}, deletedAt: null });
    const createLog = thread.body.createLog;
    expect(Object.keys(createLog).sort()).toEqual(LOG_FIELDS);
    const [log] = await requestLogRows(t, p.projectId);
    expect(createLog).toMatchObject({
      id: log.id,
      url: path,
      threadId,
      projectId: p.projectId,
      promptSlug: 'helper',
      environment: 'production',
      projectSlug: p.project,
      organizationSlug: p.workspace,
      projectAPIKeyId: p.keyId,
      deploymentVersion: '1',
      stream: false,
      assistant: true,
      doNotRecord: false,
    });
    for (const field of [
      'id',
      'url',
      'threadId',
      'promptId',
      'projectId',
      'requestIP',
      'promptSlug',
      'deploymentId',
      'organizationId',
      'promptHistoryHash',
    ]) {
      expect(typeof createLog[field]).toBe('string');
    }
    for (const field of LOG_STRING_FIELDS) expect(createLog[field] === null || typeof createLog[field] === 'string').toBe(true);
    // Object-valued fields are JSON-encoded strings.
    expect(JSON.parse(createLog.metadata)).toEqual({ ticket: 'T-1', n: 3 });
    expect(JSON.parse(createLog.variables)).toEqual({ topic: 'tea' });
    expect(JSON.parse(createLog.parameters)).toEqual({});
    expect(JSON.parse(createLog.requestData)).toEqual({
      variables: { topic: 'tea' },
      messages: [user('first question')],
      metadata: { ticket: 'T-1', n: 3 },
    });
    expectIsoDateTime(createLog.startedAt);
    // The same object as GET /v2/logs/{id} gives, which adds operational fields.
    const fromLogs = await api.get(`/v2/logs/${log.id}`).expect(200);
    expect(fromLogs.body).toMatchObject(createLog);
  });

  it('stores the request messages as one turn and the reply as the next, both pointing at the log', async () => {
    const res = await api.post(path, { messages: [user('one'), user('two')] }).expect(200);
    const threadId = res.headers['x-parley-thread-id'];
    const [log] = (await requestLogRows(t, p.projectId)).filter((l) => l.thread_id === threadId);
    const rows = await threadMessageRows(t, p.projectId, threadId);
    expect(rows.map((r) => [r.seq, r.content, r.request_log_id])).toEqual([
      [1, [user('one'), user('two')], log.id],
      [2, [reply('two')], log.id],
    ]);
    const listed = await api.get(`/v2/threads/${threadId}/messages`).expect(200);
    expect(listed.body.data.map((m: { content: unknown; requestLogId: string }) => [m.content, m.requestLogId])).toEqual([
      [[user('one'), user('two')], log.id],
      [[reply('two')], log.id],
    ]);
    const got = await api.get(`/v2/threads/${threadId}/messages/${rows[1].id}`).expect(200);
    expect(Object.keys(got.body.requestLog).sort()).toEqual(['createdAt', 'id', 'request', 'response']);
    expect(got.body.requestLog.id).toBe(log.id);
    expectIsoDateTime(got.body.requestLog.createdAt);
    expect(got.body.requestLog.request).toMatchObject({
      model: 'echo',
      messages: [{ role: 'system', content: 'Help with .' }, user('one'), user('two')],
    });
    expect(got.body.requestLog.response).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'two' } }] });
  });

  it('sends template, then the whole thread history, then the request messages; keeps what Create Thread Message added', async () => {
    const first = await api.post(invokePath(p, 'remote'), { messages: [user('u1')] }).expect(200);
    const threadId = first.headers['x-parley-thread-id'];
    await api.post(invokePath(p, 'remote'), { threadId, messages: [user('u2')] }).expect(200);
    await createMessage(t, p, threadId, 'noted by hand');
    const third = await api.post(invokePath(p, 'remote'), { threadId, messages: [user('u3')] }).expect(200);
    expect(third.headers['x-parley-thread-id']).toBe(threadId);
    expect(fake.requests[fake.requests.length - 1].body.messages).toEqual([
      { role: 'system', content: 'Be kind.' },
      user('u1'),
      reply('u1'),
      user('u2'),
      reply('u2'),
      user('noted by hand'),
      user('u3'),
    ]);
    // A call without messages appends only the reply; a deleted turn leaves the history.
    const rows = await threadMessageRows(t, p.projectId, threadId);
    await api.delete(`/v2/threads/${threadId}/messages/${rows[0].id}`).expect(200);
    fake.setNext(openaiJson(openaiCompletion({ content: 'continued' })));
    await api.post(invokePath(p, 'remote'), { threadId }).expect(200);
    expect(fake.requests[fake.requests.length - 1].body.messages).toEqual([
      { role: 'system', content: 'Be kind.' },
      reply('u1'),
      user('u2'),
      reply('u2'),
      user('noted by hand'),
      user('u3'),
      reply('u3'),
    ]);
    const after = await threadMessageRows(t, p.projectId, threadId);
    expect(after.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(after[7].content).toEqual([reply('continued')]);
  });

  it("keeps a message's tool_choice in the thread but does not send it upstream, where the chat-completion API rejects it", async () => {
    const thread = await createThread(t, p);
    await api.post(`/v2/threads/${thread.id}/messages`, { message: { role: 'user', content: 'stored', tool_choice: 'auto' } }).expect(200);
    const sent = [
      { role: 'assistant', content: 'noted', tool_calls: [] },
      { role: 'user', content: 'go', tool_choice: { type: 'function', function: { name: 'f' } } },
    ];
    await api.post(invokePath(p, 'remote'), { threadId: thread.id, messages: sent }).expect(200);
    expect(fake.requests[fake.requests.length - 1].body.messages).toEqual([
      { role: 'system', content: 'Be kind.' },
      user('stored'),
      { role: 'assistant', content: 'noted' },
      user('go'),
    ]);
    const rows = await threadMessageRows(t, p.projectId, thread.id);
    expect(rows.map((r) => r.content)).toEqual([[{ role: 'user', content: 'stored', tool_choice: 'auto' }], sent, [reply('go')]]);
  });

  it('appends 64 concurrent calls on one thread as 128 contiguous messages, each request turn followed by its reply', async () => {
    const thread = await createThread(t, p);
    const responses = await Promise.all(
      Array.from({ length: 64 }, (_, i) => api.post(path, { threadId: thread.id, messages: [user(`message ${i}`)] })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(64).fill(200));
    expect(new Set(responses.map((r) => r.headers['x-parley-thread-id']))).toEqual(new Set([thread.id]));
    const rows = await threadMessageRows(t, p.projectId, thread.id);
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 128 }, (_, i) => i + 1));
    const seen = new Set<string>();
    for (let i = 0; i < 128; i += 2) {
      const [request, answer] = [rows[i], rows[i + 1]];
      expect(request.request_log_id).not.toBeNull();
      expect(answer.request_log_id).toBe(request.request_log_id);
      expect(request.content).toHaveLength(1);
      expect(answer.content).toEqual([reply(request.content[0].content)]);
      seen.add(request.content[0].content);
    }
    expect(seen.size).toBe(64);
    const logs = (await requestLogRows(t, p.projectId)).filter((l) => l.thread_id === thread.id);
    expect(logs).toHaveLength(64);
    expect(new Set(rows.map((r) => r.request_log_id))).toEqual(new Set(logs.map((l) => l.id)));
  });

  it('answers 404 {error: "Thread not found"} for an unknown, deleted, malformed or other project\'s thread, changing nothing', async () => {
    const other = await createProject(t);
    await deploy(t, other, { slug: 'helper', kind: 'assistant' });
    const foreign = await client(t, other.key)
      .post(invokePath(other, 'helper'), { messages: [user('mine')] })
      .expect(200);
    const foreignId = foreign.headers['x-parley-thread-id'];
    const deleted = await createThread(t, p);
    await api.delete(`/v2/threads/${deleted.id}`).expect(200);
    const logsBefore = (await requestLogRows(t, p.projectId)).length;
    for (const threadId of ['01900000-0000-7000-8000-000000000000', deleted.id, 'not-a-uuid', foreignId]) {
      const res = await api.post(path, { threadId, messages: [user('lost')] });
      expect([res.status, res.body]).toEqual([404, { error: 'Thread not found' }]);
    }
    expect(await requestLogRows(t, p.projectId)).toHaveLength(logsBefore);
    expect(await threadMessageRows(t, p.projectId, deleted.id)).toEqual([]);
    expect((await threadMessageRows(t, other.projectId, foreignId)).map((r) => r.content)).toEqual([[user('mine')], [reply('mine')]]);
  });
});
