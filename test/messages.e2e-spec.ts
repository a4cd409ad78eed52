import { createMessage, createProject, createThread, TestProject } from './support/factories';
import { Client, client, expectIsoDateTime, expectResourceError, FIELDS, keysOf, UUID } from './support/http';
import { createTestApp, TestApp } from './support/test-app';

/** Thread messages: success shapes and types per endpoint, content forms, role default, metadata replace. */
describe('thread messages', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;

  beforeAll(async () => {
    t = await createTestApp();
    p = await createProject(t);
    api = client(t, p.key);
  });
  afterAll(() => t.close());

  const newThread = async () => (await createThread(t, p)).id;

  describe('POST /v2/threads/:id/messages', () => {
    it('creates with exactly the spec fields (no requestLog without an invoke), requestLogId null', async () => {
      const threadId = await newThread();
      const res = await api.post(`/v2/threads/${threadId}/messages`, {
        message: { role: 'assistant', content: 'Hello!' },
        metadata: { source: 'import', n: 3 },
      });
      expect(res.status).toBe(200);
      expect(keysOf(res.body)).toEqual(FIELDS.message);
      expect(res.body.id).toMatch(UUID);
      expectIsoDateTime(res.body.createdAt);
      expect(res.body).toEqual({
        id: res.body.id,
        createdAt: res.body.createdAt,
        threadId,
        content: [{ role: 'assistant', content: 'Hello!' }],
        metadata: { source: 'import', n: 3 },
        requestLogId: null,
      });
      const [row] = await t.dataSource.query(
        'SELECT project_id, thread_id, seq, content, metadata, request_log_id, deleted_at FROM thread_messages WHERE id = $1',
        [res.body.id],
      );
      expect(row).toEqual({
        project_id: p.projectId,
        thread_id: threadId,
        seq: 1,
        content: [{ role: 'assistant', content: 'Hello!' }],
        metadata: { source: 'import', n: 3 },
        request_log_id: null,
        deleted_at: null,
      });
    });

    it('role defaults to user; metadata defaults to {}', async () => {
      const res = await api.post(`/v2/threads/${await newThread()}/messages`, { message: { content: 'hi' } });
      expect(res.status).toBe(200);
      expect(res.body.content).toEqual([{ role: 'user', content: 'hi' }]);
      expect(res.body.metadata).toEqual({});
    });

    it('stores content given as a string, an array of parts or null, each as [message]', async () => {
      const threadId = await newThread();
      const parts = [
        { type: 'text', text: 'look at this' },
        { type: 'image_url', image_url: { url: 'https://example.invalid/cat.png', detail: 'low' } },
      ];
      const cases: [Record<string, unknown>, Record<string, unknown>][] = [
        [{ content: 'plain' }, { role: 'user', content: 'plain' }],
        [
          { role: 'user', content: parts },
          { role: 'user', content: parts },
        ],
        [
          { role: 'system', content: null },
          { role: 'system', content: null },
        ],
        // An image without detail gets the spec's default, "auto".
        [
          { content: [{ type: 'image_url', image_url: { url: 'u' } }] },
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'u', detail: 'auto' } }] },
        ],
        [
          {
            role: 'assistant',
            content: null,
            name: 'bot',
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
            tool_choice: 'auto',
          },
          {
            role: 'assistant',
            content: null,
            name: 'bot',
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
            tool_choice: 'auto',
          },
        ],
        [
          { role: 'tool', content: '42', tool_call_id: 'c1' },
          { role: 'tool', content: '42', tool_call_id: 'c1' },
        ],
      ];
      for (const [message, stored] of cases) {
        const res = await api.post(`/v2/threads/${threadId}/messages`, { message });
        expect(res.status).toBe(200);
        expect(res.body.content).toEqual([stored]);
        const [row] = await t.dataSource.query('SELECT content FROM thread_messages WHERE id = $1', [res.body.id]);
        expect(row.content).toEqual([stored]);
      }
      const listed = await api.get(`/v2/threads/${threadId}/messages`);
      expect(listed.body.data.map((m: { content: unknown[] }) => m.content)).toEqual(cases.map(([, stored]) => [stored]));
    });

    it('every role of the message object is accepted', async () => {
      const threadId = await newThread();
      for (const role of ['assistant', 'user', 'system', 'function', 'tool']) {
        const res = await api.post(`/v2/threads/${threadId}/messages`, { message: { role, content: role } });
        expect(res.status).toBe(200);
        expect(res.body.content[0].role).toBe(role);
      }
    });

    it('concurrent appends to one thread get consecutive sequence numbers, none lost', async () => {
      const threadId = await newThread();
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => api.post(`/v2/threads/${threadId}/messages`, { message: { content: `m${i}` } })),
      );
      expect(results.map((r) => r.status)).toEqual(Array(12).fill(200));
      const rows: { seq: number }[] = await t.dataSource.query('SELECT seq FROM thread_messages WHERE thread_id = $1 ORDER BY seq', [
        threadId,
      ]);
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      const [thread] = await t.dataSource.query('SELECT last_seq FROM threads WHERE id = $1', [threadId]);
      expect(thread.last_seq).toBe(12);
    });
  });

  describe('GET /v2/threads/:id/messages/:messageId', () => {
    it('answers with exactly the spec fields and the stored values', async () => {
      const threadId = await newThread();
      const created = await createMessage(t, p, threadId, 'remember me', { tag: 'x' });
      const res = await api.get(`/v2/threads/${threadId}/messages/${created.id}`);
      expect(res.status).toBe(200);
      expect(keysOf(res.body)).toEqual(FIELDS.message);
      expectIsoDateTime(res.body.createdAt);
      expect(res.body).toEqual(created);
    });
  });

  describe('GET /v2/threads/:id/messages', () => {
    it('lists oldest first by default with the spec envelope and item fields', async () => {
      const threadId = await newThread();
      const a = await createMessage(t, p, threadId, 'a');
      const b = await createMessage(t, p, threadId, 'b', { k: 1 });
      const res = await api.get(`/v2/threads/${threadId}/messages`);
      expect(res.status).toBe(200);
      expect(keysOf(res.body)).toEqual(FIELDS.list);
      expect(res.body).toMatchObject({ object: 'list', has_more: false, first_id: a.id, last_id: b.id });
      for (const item of res.body.data) {
        expect(keysOf(item)).toEqual(FIELDS.messageListItem);
        expectIsoDateTime(item.createdAt);
        expect(item.requestLogId).toBeNull();
      }
      expect(res.body.data).toEqual([a, b]);
      const desc = await api.get(`/v2/threads/${threadId}/messages?order=desc`);
      expect(desc.body.data.map((m: { id: string }) => m.id)).toEqual([b.id, a.id]);
      expect(desc.body).toMatchObject({ first_id: b.id, last_id: a.id });
    });

    it('a thread without messages lists an empty page with first_id and last_id null', async () => {
      const res = await api.get(`/v2/threads/${await newThread()}/messages`);
      expect(res.body).toEqual({ data: [], has_more: false, object: 'list', first_id: null, last_id: null });
    });
  });

  describe('POST /v2/threads/:id/messages/:messageId (update)', () => {
    it('replaces the metadata entirely and answers with exactly the spec fields (deletedAt null)', async () => {
      const threadId = await newThread();
      const created = await createMessage(t, p, threadId, 'hi', { old: 'gone', also: 2 });
      const res = await api.post(`/v2/threads/${threadId}/messages/${created.id}`, { metadata: { fresh: 1 } });
      expect(res.status).toBe(200);
      expect(keysOf(res.body)).toEqual(FIELDS.messageUpdated);
      expectIsoDateTime(res.body.createdAt);
      expect(res.body).toEqual({ ...created, metadata: { fresh: 1 }, deletedAt: null });
      expect((await api.get(`/v2/threads/${threadId}/messages/${created.id}`)).body.metadata).toEqual({ fresh: 1 });
      const [row] = await t.dataSource.query('SELECT metadata, content FROM thread_messages WHERE id = $1', [created.id]);
      expect(row).toEqual({ metadata: { fresh: 1 }, content: [{ role: 'user', content: 'hi' }] });
    });
  });

  describe('DELETE /v2/threads/:id/messages/:messageId', () => {
    it('soft-deletes one message: confirmation body, row kept with deleted_at, gone from get, list and update', async () => {
      const threadId = await newThread();
      const kept = await createMessage(t, p, threadId, 'kept');
      const gone = await createMessage(t, p, threadId, 'gone');
      const res = await api.delete(`/v2/threads/${threadId}/messages/${gone.id}`);
      expect(res.status).toBe(200);
      expect(keysOf(res.body)).toEqual(FIELDS.messageDeleted);
      expect(res.body).toEqual({ id: gone.id, object: 'thread.message.deleted', deleted: true });

      const [row] = await t.dataSource.query('SELECT deleted_at, content FROM thread_messages WHERE id = $1', [gone.id]);
      expect(row.deleted_at).not.toBeNull();
      expect(row.content).toEqual([{ role: 'user', content: 'gone' }]);
      const path = `/v2/threads/${threadId}/messages/${gone.id}`;
      expectResourceError(await api.get(path), 404, 'Thread not found, message not in thread, or message does not exist');
      expectResourceError(await api.post(path, { metadata: {} }), 404, 'Message not found');
      expectResourceError(await api.delete(path), 404, 'Message not found or does not belong to the proper thread/project');
      expect((await api.get(`/v2/threads/${threadId}/messages`)).body.data).toEqual([kept]);
      // The thread itself is untouched.
      expect((await api.get(`/v2/threads/${threadId}`)).status).toBe(200);
    });
  });
});
