import { createMessage, createProject, createThread, projectRows, TestProject } from './support/factories';
import { Client, client, expectResourceError } from './support/http';
import { createTestApp, TestApp } from './support/test-app';

/** A key of project B can neither see nor change anything of project A. */
describe('project isolation of threads and messages', () => {
  let t: TestApp;
  let a: TestProject;
  let b: TestProject;
  let asA: Client;
  let asB: Client;
  let threadId: string;
  let messageId: string;
  let before: Awaited<ReturnType<typeof projectRows>>;

  beforeAll(async () => {
    t = await createTestApp();
    a = await createProject(t);
    b = await createProject(t);
    asA = client(t, a.key);
    asB = client(t, b.key);
    threadId = (await createThread(t, a, { metadata: { owner: 'A' }, createLog: { id: 'log-A' } })).id;
    messageId = (await createMessage(t, a, threadId, 'private to A', { secret: 'yes' })).id;
    await createMessage(t, a, threadId, 'second');
    await createThread(t, b, { metadata: { owner: 'B' } });
    before = await projectRows(t, a.projectId);
    expect(before.threads).toHaveLength(1);
    expect(before.messages).toHaveLength(2);
  });
  afterAll(() => t.close());

  it("B's key gets 404 Thread not found on A's thread for get, update, delete, list-messages and create-message", async () => {
    const path = `/v2/threads/${threadId}`;
    expectResourceError(await asB.get(path), 404, 'Thread not found');
    expectResourceError(await asB.post(path, { metadata: { owner: 'B' } }), 404, 'Thread not found');
    expectResourceError(await asB.delete(path), 404, 'Thread not found');
    expectResourceError(await asB.get(`${path}/messages`), 404, 'Thread not found');
    expectResourceError(await asB.get(`${path}/messages?order=desc&limit=1`), 404, 'Thread not found');
    expectResourceError(await asB.post(`${path}/messages`, { message: { content: 'injected' } }), 404, 'Thread not found');
  });

  it("B's key gets 404 on A's message for get, update and delete, each with its message", async () => {
    const path = `/v2/threads/${threadId}/messages/${messageId}`;
    expectResourceError(await asB.get(path), 404, 'Thread not found, message not in thread, or message does not exist');
    expectResourceError(await asB.post(path, { metadata: { secret: 'no' } }), 404, 'Message not found');
    expectResourceError(await asB.delete(path), 404, 'Message not found or does not belong to the proper thread/project');
  });

  it("B's list shows only B's threads, and A's thread id is no cursor for B", async () => {
    const listed = await asB.get('/v2/threads');
    expect(listed.body.data.map((d: { metadata: object }) => d.metadata)).toEqual([{ owner: 'B' }]);
    expect(listed.body.data.every((d: { projectId: string }) => d.projectId === b.projectId)).toBe(true);
    expectResourceError(await asB.get(`/v2/threads?after=${threadId}`), 400, 'Invalid request parameters');
  });

  it("afterwards A's rows are exactly as they were, seen through A's key and through SQL", async () => {
    expect(await projectRows(t, a.projectId)).toEqual(before);
    const thread = await asA.get(`/v2/threads/${threadId}`);
    expect(thread.body).toMatchObject({ id: threadId, metadata: { owner: 'A' }, createLog: { id: 'log-A' }, deletedAt: null });
    const messages = await asA.get(`/v2/threads/${threadId}/messages`);
    expect(messages.body.data.map((m: { content: unknown[] }) => m.content)).toEqual([
      [{ role: 'user', content: 'private to A' }],
      [{ role: 'user', content: 'second' }],
    ]);
    expect(messages.body.data[0].metadata).toEqual({ secret: 'yes' });
    // Nothing B tried landed in B's project either.
    const bRows = await projectRows(t, b.projectId);
    expect(bRows.messages).toHaveLength(0);
    expect(bRows.threads).toHaveLength(1);
  });
});
