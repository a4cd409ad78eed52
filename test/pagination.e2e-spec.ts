import { bulkInsertMessages, bulkInsertThreads, createMessage, createProject, createThread, TestProject } from './support/factories';
import { Client, client } from './support/http';
import { createTestApp, TestApp } from './support/test-app';

interface Page {
  data: { id: string }[];
  has_more: boolean;
  first_id: string | null;
  last_id: string | null;
}

/** Cursor pagination of threads (newest first) and messages (asc/desc by sequence). */
describe('pagination', () => {
  let t: TestApp;

  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  /** Follows `after` = last id of each page until has_more is false; checks each envelope on the way. */
  async function walk(api: Client, path: string, query: string): Promise<{ sizes: number[]; ids: string[] }> {
    const sizes: number[] = [];
    const ids: string[] = [];
    let after: string | null = null;
    for (let guard = 0; guard < 50; guard++) {
      const res = await api.get(`${path}?${query}${after ? `&after=${after}` : ''}`);
      expect(res.status).toBe(200);
      const page = res.body as Page;
      sizes.push(page.data.length);
      ids.push(...page.data.map((d) => d.id));
      expect(page.first_id).toBe(page.data[0]?.id ?? null);
      expect(page.last_id).toBe(page.data.at(-1)?.id ?? null);
      if (!page.has_more) return { sizes, ids };
      after = page.last_id;
    }
    throw new Error('pagination did not end');
  }

  describe('threads', () => {
    let p: TestProject;
    let api: Client;
    let newestFirst: string[];

    beforeAll(async () => {
      p = await createProject(t);
      api = client(t, p.key);
      await bulkInsertThreads(t, p.projectId, 250);
      const rows: { id: string }[] = await t.dataSource.query('SELECT id FROM threads WHERE project_id = $1 ORDER BY id DESC', [
        p.projectId,
      ]);
      newestFirst = rows.map((r) => r.id);
      expect(newestFirst).toHaveLength(250);
    });

    it('walks 250 threads with limit 100 as 100, 100, 50 in id order, without duplicates or gaps', async () => {
      const { sizes, ids } = await walk(api, '/v2/threads', 'limit=100');
      expect(sizes).toEqual([100, 100, 50]);
      expect(ids).toEqual(newestFirst);
      expect(new Set(ids).size).toBe(250);
    });

    it('limit defaults to 100', async () => {
      const res = await api.get('/v2/threads');
      expect(res.body.data).toHaveLength(100);
      expect(res.body.has_more).toBe(true);
      expect(res.body.last_id).toBe(newestFirst[99]);
    });

    it('small pages walk the same sequence', async () => {
      const { sizes, ids } = await walk(api, '/v2/threads', 'limit=23');
      expect(sizes).toEqual([...Array(10).fill(23), 20]);
      expect(ids).toEqual(newestFirst);
    });

    it('a page ending exactly at the last thread says has_more false', async () => {
      const res = await api.get(`/v2/threads?limit=50&after=${newestFirst[199]}`);
      expect(res.body.data).toHaveLength(50);
      expect(res.body.has_more).toBe(false);
      const empty = await api.get(`/v2/threads?after=${newestFirst[249]}`);
      expect(empty.body).toEqual({ object: 'list', data: [], has_more: false, first_id: null, last_id: null });
    });

    it('lists threads made through the API newest first', async () => {
      const own = await createProject(t);
      const made: string[] = [];
      for (let i = 0; i < 5; i++) made.push((await createThread(t, own, { metadata: { i } })).id);
      const res = await client(t, own.key).get('/v2/threads');
      expect(res.body.data.map((d: { id: string }) => d.id)).toEqual([...made].reverse());
    });

    it('deleted threads leave the list; a deleted thread still works as the cursor', async () => {
      const own = await createProject(t);
      const ownApi = client(t, own.key);
      await bulkInsertThreads(t, own.projectId, 30);
      const first = (await ownApi.get('/v2/threads?limit=10')).body as Page;
      const cursor = first.last_id!;
      const onNextPage = (await ownApi.get(`/v2/threads?limit=10&after=${cursor}`)).body.data[3].id;
      await ownApi.delete(`/v2/threads/${cursor}`).expect(200);
      await ownApi.delete(`/v2/threads/${onNextPage}`).expect(200);

      const next = (await ownApi.get(`/v2/threads?limit=10&after=${cursor}`)).body as Page;
      expect(next.data).toHaveLength(10);
      expect(next.data.map((d) => d.id)).not.toContain(onNextPage);
      const { ids } = await walk(ownApi, '/v2/threads', 'limit=10');
      expect(ids).toHaveLength(28);
      expect(ids).not.toContain(cursor);
      expect(ids).not.toContain(onNextPage);
    });
  });

  describe('messages', () => {
    let p: TestProject;
    let api: Client;
    let threadId: string;
    let bySeq: string[];

    beforeAll(async () => {
      p = await createProject(t);
      api = client(t, p.key);
      threadId = (await createThread(t, p)).id;
      await bulkInsertMessages(t, p.projectId, threadId, 248);
      // Two more through the API: they continue the sequence after the bulk rows.
      await createMessage(t, p, threadId, 'api 1');
      await createMessage(t, p, threadId, 'api 2');
      const rows: { id: string }[] = await t.dataSource.query('SELECT id FROM thread_messages WHERE thread_id = $1 ORDER BY seq', [
        threadId,
      ]);
      bySeq = rows.map((r) => r.id);
      expect(bySeq).toHaveLength(250);
    });

    it('walks 250 messages oldest first (the default) as 100, 100, 50 in sequence order', async () => {
      const { sizes, ids } = await walk(api, `/v2/threads/${threadId}/messages`, 'limit=100');
      expect(sizes).toEqual([100, 100, 50]);
      expect(ids).toEqual(bySeq);
      const explicit = await walk(api, `/v2/threads/${threadId}/messages`, 'limit=100&order=asc');
      expect(explicit.ids).toEqual(bySeq);
    });

    it('walks 250 messages newest first with order=desc', async () => {
      const { sizes, ids } = await walk(api, `/v2/threads/${threadId}/messages`, 'limit=100&order=desc');
      expect(sizes).toEqual([100, 100, 50]);
      expect(ids).toEqual([...bySeq].reverse());
      expect(new Set(ids).size).toBe(250);
    });

    it('orders by sequence, not by id or time: the API-made messages come last', async () => {
      const res = await api.get(`/v2/threads/${threadId}/messages?order=desc&limit=2`);
      expect(res.body.data.map((m: { content: { content: string }[] }) => m.content[0].content)).toEqual(['api 2', 'api 1']);
    });

    it('limit defaults to 100', async () => {
      const res = await api.get(`/v2/threads/${threadId}/messages`);
      expect(res.body.data).toHaveLength(100);
      expect(res.body).toMatchObject({ has_more: true, first_id: bySeq[0], last_id: bySeq[99] });
    });

    it('deleted messages leave the list; a deleted message still works as the cursor, in both orders', async () => {
      const own = await createThread(t, p);
      await bulkInsertMessages(t, p.projectId, own.id, 20);
      const path = `/v2/threads/${own.id}/messages`;
      const all = ((await api.get(path)).body as Page).data.map((m) => m.id);
      await api.delete(`${path}/${all[9]}`).expect(200);
      await api.delete(`${path}/${all[12]}`).expect(200);

      const asc = (await api.get(`${path}?limit=5&after=${all[9]}`)).body as Page;
      expect(asc.data.map((m) => m.id)).toEqual([all[10], all[11], all[13], all[14], all[15]]);
      const desc = (await api.get(`${path}?order=desc&limit=3&after=${all[9]}`)).body as Page;
      expect(desc.data.map((m) => m.id)).toEqual([all[8], all[7], all[6]]);
      const { ids } = await walk(api, path, 'limit=6');
      expect(ids).toEqual(all.filter((_, i) => i !== 9 && i !== 12));
    });
  });
});
