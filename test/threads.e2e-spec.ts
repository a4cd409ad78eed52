import { createMessage, createProject, createThread, TestProject } from './support/factories';
import { Client, client, expectIsoDateTime, expectResourceError, expectUnixSeconds, FIELDS, keysOf, UUID } from './support/http';
import { createTestApp, TestApp } from './support/test-app';

/** Threads: success shapes and types per endpoint, createLog, metadata replace, soft delete. */
describe('threads', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;

  beforeAll(async () => {
    t = await createTestApp();
    p = await createProject(t);
    api = client(t, p.key);
  });
  afterAll(() => t.close());

  const FULL_CREATE_LOG = {
    id: 'log_1',
    url: 'https://example.invalid/acme/support/bot/production',
    metadata: '{"k":"v"}',
    promptId: 'p_1',
    threadId: 't_1',
    projectId: 'proj_1',
    requestIP: '203.0.113.7',
    variables: '{"name":"Ada"}',
    parameters: '{"temperature":0.2}',
    promptSlug: 'bot',
    environment: 'production',
    providerKeyId: 'pk-neutral-1',
    projectSlug: 'support',
    requestData: '{}',
    deploymentId: 'd_1',
    organizationId: 'o_1',
    projectAPIKeyId: 'k_1',
    organizationSlug: 'acme',
    deploymentVersion: '3',
    promptHistoryHash: 'abc123',
    providerOrganization: 'org-neutral',
    stream: false,
    assistant: true,
    doNotRecord: false,
    startedAt: '2025-01-02T03:04:05.678Z',
  };

  describe('POST /v2/threads', () => {
    it('creates with exactly the spec fields: ISO createdAt, deletedAt null, createLog {} when not given', async () => {
      const before = Date.now();
      const res = await api.post('/v2/threads', { metadata: { customer: 'c_42', tier: 2 } });
      expect(res.status).toBe(200);
      expect(keysOf(res.body)).toEqual(FIELDS.threadCreated);
      expect(res.body.id).toMatch(UUID);
      expectIsoDateTime(res.body.createdAt);
      expect(Date.parse(res.body.createdAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(res.body).toMatchObject({ projectId: p.projectId, metadata: { customer: 'c_42', tier: 2 }, deletedAt: null, createLog: {} });

      const [row] = await t.dataSource.query('SELECT project_id, metadata, create_log, deleted_at FROM threads WHERE id = $1', [
        res.body.id,
      ]);
      expect(row).toEqual({ project_id: p.projectId, metadata: { customer: 'c_42', tier: 2 }, create_log: {}, deleted_at: null });
    });

    it('accepts an empty body and no body at all (metadata {}, createLog {})', async () => {
      for (const res of [await api.post('/v2/threads', {}), await api.post('/v2/threads')]) {
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ metadata: {}, createLog: {}, deletedAt: null });
      }
    });

    it('returns createLog as given (every field of the request-log object, or some) and keeps it for get', async () => {
      const res = await api.post('/v2/threads', { createLog: FULL_CREATE_LOG });
      expect(res.status).toBe(200);
      expect(res.body.createLog).toEqual(FULL_CREATE_LOG);
      const got = await api.get(`/v2/threads/${res.body.id}`);
      expect(got.body.createLog).toEqual(FULL_CREATE_LOG);
      const partial = await api.post('/v2/threads', { createLog: { id: 'only-id', stream: true } });
      expect(partial.body.createLog).toEqual({ id: 'only-id', stream: true });
    });

    it('keeps metadata keys that are also names of JavaScript object methods', async () => {
      const metadata = { constructor: 'x', toString: 1, valueOf: 'v', hasOwnProperty: 'h' };
      const res = await api.post('/v2/threads', { metadata });
      expect(res.status).toBe(200);
      expect(res.body.metadata).toEqual(metadata);
      expect((await api.get(`/v2/threads/${res.body.id}`)).body.metadata).toEqual(metadata);
    });

    it('accepts metadata at its limits: 64 keys, 64-character keys, 512-character values, numbers', async () => {
      const metadata: Record<string, string | number> = {};
      for (let i = 0; i < 63; i++) metadata[`k${i}`] = i % 2 ? i : 'v'.repeat(512);
      metadata['x'.repeat(64)] = -1.5;
      const res = await api.post('/v2/threads', { metadata });
      expect(res.status).toBe(200);
      expect(res.body.metadata).toEqual(metadata);
    });
  });

  describe('GET /v2/threads/:id', () => {
    it('answers with exactly the spec fields and createdAt in Unix seconds matching the create time', async () => {
      const created = await createThread(t, p, { metadata: { a: 'b' } });
      const res = await api.get(`/v2/threads/${created.id}`);
      expect(res.status).toBe(200);
      expect(keysOf(res.body)).toEqual(FIELDS.thread);
      expectUnixSeconds(res.body.createdAt);
      expect(res.body.createdAt).toBe(Math.floor(Date.parse(created.createdAt as string) / 1000));
      expect(res.body).toEqual({
        id: created.id,
        createdAt: res.body.createdAt,
        projectId: p.projectId,
        deletedAt: null,
        createLog: {},
        metadata: { a: 'b' },
      });
    });
  });

  describe('GET /v2/threads', () => {
    it('lists with the spec envelope and item fields, createdAt in Unix seconds', async () => {
      const own = await createProject(t);
      const first = await createThread(t, own, { metadata: { n: 1 } });
      const second = await createThread(t, own, { metadata: { n: 2 } });
      const res = await client(t, own.key).get('/v2/threads');
      expect(res.status).toBe(200);
      expect(keysOf(res.body)).toEqual(FIELDS.list);
      expect(res.body).toMatchObject({ object: 'list', has_more: false, first_id: second.id, last_id: first.id });
      expect(res.body.data.map((d: { id: string }) => d.id)).toEqual([second.id, first.id]);
      for (const item of res.body.data) {
        expect(keysOf(item)).toEqual(FIELDS.threadListItem);
        expectUnixSeconds(item.createdAt);
        expect(item.projectId).toBe(own.projectId);
        expect(item.createLog).toEqual({});
      }
      expect(res.body.data[1].metadata).toEqual({ n: 1 });
    });

    it('an empty project lists an empty page with first_id and last_id null', async () => {
      const empty = await createProject(t);
      const res = await client(t, empty.key).get('/v2/threads');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ object: 'list', data: [], has_more: false, first_id: null, last_id: null });
    });
  });

  describe('POST /v2/threads/:id (update)', () => {
    it('replaces the metadata entirely and answers with exactly the spec fields', async () => {
      const created = await createThread(t, p, { metadata: { keep: 'no', drop: 1 }, createLog: { id: 'L' } });
      const res = await api.post(`/v2/threads/${created.id}`, { metadata: { fresh: 'yes' } });
      expect(res.status).toBe(200);
      expect(keysOf(res.body)).toEqual(FIELDS.threadUpdated);
      expectUnixSeconds(res.body.createdAt);
      expect(res.body).toEqual({
        id: created.id,
        createdAt: res.body.createdAt,
        projectId: p.projectId,
        metadata: { fresh: 'yes' },
        createLog: { id: 'L' },
      });
      expect((await api.get(`/v2/threads/${created.id}`)).body.metadata).toEqual({ fresh: 'yes' });
      const [row] = await t.dataSource.query('SELECT metadata FROM threads WHERE id = $1', [created.id]);
      expect(row.metadata).toEqual({ fresh: 'yes' });
    });

    it('an empty metadata object clears it', async () => {
      const created = await createThread(t, p, { metadata: { a: 1 } });
      const res = await api.post(`/v2/threads/${created.id}`, { metadata: {} });
      expect(res.status).toBe(200);
      expect(res.body.metadata).toEqual({});
    });
  });

  describe('DELETE /v2/threads/:id', () => {
    it('soft-deletes the thread and every message; rows stay with deleted_at set; twice is 404', async () => {
      const thread = await createThread(t, p);
      const early = await createMessage(t, p, thread.id, 'deleted first');
      await createMessage(t, p, thread.id, 'two');
      await createMessage(t, p, thread.id, 'three');
      expect((await api.delete(`/v2/threads/${thread.id}/messages/${early.id}`)).status).toBe(200);

      const res = await api.delete(`/v2/threads/${thread.id}`);
      expect(res.status).toBe(200);
      expect(keysOf(res.body)).toEqual(FIELDS.threadDeleted);
      expect(res.body).toEqual({ id: thread.id, object: 'thread.deleted', deleted: true });

      const [row] = await t.dataSource.query('SELECT deleted_at FROM threads WHERE project_id = $1 AND id = $2', [p.projectId, thread.id]);
      expect(row.deleted_at).not.toBeNull();
      const deletedAt = new Date(row.deleted_at).getTime();
      const messages: { id: string; deleted_at: Date | string | null }[] = await t.dataSource.query(
        'SELECT id, deleted_at FROM thread_messages WHERE project_id = $1 AND thread_id = $2 ORDER BY seq',
        [p.projectId, thread.id],
      );
      expect(messages).toHaveLength(3);
      for (const m of messages) expect(m.deleted_at).not.toBeNull();
      // The message deleted on its own keeps its own (earlier) time; the others get the thread's.
      expect(new Date(messages[0].deleted_at!).getTime()).toBeLessThanOrEqual(deletedAt);
      expect(messages.slice(1).map((m) => new Date(m.deleted_at!).getTime())).toEqual([deletedAt, deletedAt]);

      expectResourceError(await api.delete(`/v2/threads/${thread.id}`), 404, 'Thread not found');
    });

    it('a deleted thread is gone from get, list, update and its messages', async () => {
      const own = await createProject(t);
      const ownApi = client(t, own.key);
      const kept = await createThread(t, own);
      const gone = await createThread(t, own);
      const message = await createMessage(t, own, gone.id, 'hi');
      expect((await ownApi.delete(`/v2/threads/${gone.id}`)).status).toBe(200);

      expectResourceError(await ownApi.get(`/v2/threads/${gone.id}`), 404, 'Thread not found');
      expectResourceError(await ownApi.post(`/v2/threads/${gone.id}`, { metadata: { a: 1 } }), 404, 'Thread not found');
      expect((await ownApi.get('/v2/threads')).body.data.map((d: { id: string }) => d.id)).toEqual([kept.id]);
      expectResourceError(await ownApi.get(`/v2/threads/${gone.id}/messages`), 404, 'Thread not found');
      expectResourceError(await ownApi.post(`/v2/threads/${gone.id}/messages`, { message: { content: 'x' } }), 404, 'Thread not found');
      const m = `/v2/threads/${gone.id}/messages/${message.id}`;
      expectResourceError(await ownApi.get(m), 404, 'Thread not found, message not in thread, or message does not exist');
      expectResourceError(await ownApi.post(m, { metadata: {} }), 404, 'Message not found');
      expectResourceError(await ownApi.delete(m), 404, 'Message not found or does not belong to the proper thread/project');
    });
  });
});
