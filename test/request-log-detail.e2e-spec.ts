import { FakeUpstream, openaiCompletion, openaiJson, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { Client, client } from './support/http';
import { addProviderCredential, deploy, INVOKE_APP_ENV, invokePath } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

const user = (content: string) => ({ role: 'user', content });

/**
 * GET /v2/logs/{id} shows what was sent to the provider and what came back, and the thread
 * messages the call added; an assistant's request is rebuilt from its thread (the log stores it
 * without the history), exactly as the provider received it, deleted messages included.
 */
describe('request log detail', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let fake: FakeUpstream;

  const logOf = async (slug: string) => (await api.get(`/v2/logs?slug=${slug}&limit=1`).expect(200)).body.data[0] as { id: string };
  const detail = async (id: string) => (await api.get(`/v2/logs/${id}`).expect(200)).body;
  const answer = (content: string) => fake.setNext(openaiJson(openaiCompletion({ content })));

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    t = await createTestApp({ ...INVOKE_APP_ENV, PROVIDER_MAX_RETRIES: '0' });
    p = await createProject(t);
    api = client(t, p.key);
    await addProviderCredential(t, p, { name: 'up', type: 'openai', baseUrl: fake.url, apiKey: 'sk-d' });
    await deploy(t, p, { slug: 'plain', provider: 'up', model: 'gpt-d' });
    await deploy(t, p, { slug: 'helper', kind: 'assistant', provider: 'up', model: 'gpt-d' });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it("shows a prompt call's provider request and response, and no thread messages", async () => {
    answer('plain answer');
    await api.post(invokePath(p, 'plain'), { metadata: { k: 'v' } }).expect(200);
    const body = await detail((await logOf('plain')).id);
    expect(body.request).toEqual(fake.requests[fake.requests.length - 1].body);
    expect(body.response).toEqual(openaiCompletion({ content: 'plain answer' }));
    expect(body.threadMessageIds).toEqual([]);
  });

  it("rebuilds an assistant's full request from its thread, also after a message was deleted", async () => {
    const sent: unknown[] = [];
    const logIds: string[] = [];
    answer('r1');
    const first = await api.post(invokePath(p, 'helper'), { messages: [user('q1')] }).expect(200);
    const threadId = first.headers['x-parley-thread-id'];
    sent.push(fake.requests[fake.requests.length - 1].body);
    logIds.push((await logOf('helper')).id);
    for (const q of ['q2', 'q3']) {
      answer(`r${q.slice(1)}`);
      await api.post(invokePath(p, 'helper'), { threadId, messages: [user(q)] }).expect(200);
      sent.push(fake.requests[fake.requests.length - 1].body);
      logIds.push((await logOf('helper')).id);
    }
    const messages = (await api.get(`/v2/threads/${threadId}/messages`).expect(200)).body.data as { id: string }[];
    expect(messages).toHaveLength(6);
    // Turn 2's question is deleted: turn 4 no longer sends it, turn 3's log still shows it was sent.
    await api.delete(`/v2/threads/${threadId}/messages/${messages[2].id}`).expect(200);
    answer('r4');
    await api.post(invokePath(p, 'helper'), { threadId, messages: [user('q4')] }).expect(200);
    sent.push(fake.requests[fake.requests.length - 1].body);
    logIds.push((await logOf('helper')).id);
    expect((sent[3] as { messages: unknown[] }).messages).toHaveLength(1 + 5 + 1);

    // Stored: the template and the new message only, and where the history is.
    const stored = await t.dataSource.query(
      `SELECT provider_request, thread_range FROM request_logs WHERE project_id = $1 AND id = ANY($2::uuid[]) ORDER BY id`,
      [p.projectId, logIds],
    );
    expect(stored.map((row: { provider_request: { messages: unknown[] } }) => row.provider_request.messages.length)).toEqual([2, 2, 2, 2]);
    expect(stored.map((row: { thread_range: unknown }) => row.thread_range)).toEqual([
      null,
      { threadId, fromSeq: 1, toSeq: 2, skip: [], at: 1, count: 2 },
      { threadId, fromSeq: 1, toSeq: 4, skip: [], at: 1, count: 4 },
      { threadId, fromSeq: 1, toSeq: 6, skip: [3], at: 1, count: 5 },
    ]);

    const all = (await t.dataSource.query(`SELECT id, seq FROM thread_messages WHERE project_id = $1 AND thread_id = $2 ORDER BY seq`, [
      p.projectId,
      threadId,
    ])) as { id: string }[];
    for (const [turn, id] of logIds.entries()) {
      const body = await detail(id);
      expect({ turn, request: body.request }).toEqual({ turn, request: sent[turn] });
      expect(body.response.choices[0].message.content).toBe(`r${turn + 1}`);
      expect(body.threadMessageIds).toEqual([all[2 * turn].id, all[2 * turn + 1].id]);
      // A thread message's requestLog shows the same rebuilt request.
      if (turn < 3) {
        const reply = (await api.get(`/v2/threads/${threadId}/messages/${all[2 * turn + 1].id}`).expect(200)).body;
        expect(reply.requestLog.request).toEqual(sent[turn]);
      }
    }
  });

  it('shows neither request nor response under doNotRecord', async () => {
    answer('secret');
    await api.post(invokePath(p, 'plain'), { doNotRecord: true }).expect(200);
    const body = await detail((await logOf('plain')).id);
    expect(body.doNotRecord).toBe(true);
    expect(body.request).toBeNull();
    expect(body.response).toBeNull();
  });
});
