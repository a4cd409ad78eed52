import { createProject, createThread, TestProject } from './support/factories';
import { createTestApp, TestApp } from './support/test-app';

/** GET /v2/threads?metadata=key:value (docs/console.md, the threads screen): newest first, paged, the caller's project only. */
describe('thread list filtered by metadata', () => {
  let t: TestApp;
  let p: TestProject;
  let other: TestProject;
  const ids = (rows: { id: string }[]) => rows.map((r) => r.id);
  const list = async (q: TestProject, query: string) =>
    (await t.http().get(`/v2/threads?${query}`).set('X-API-Key', q.key).expect(200)).body;

  beforeAll(async () => {
    t = await createTestApp();
    p = await createProject(t);
    other = await createProject(t);
  });
  afterAll(() => t.close());

  it('keeps the live threads with that value, newest first, paged with after; numbers match their digits', async () => {
    const a = await createThread(t, p, { metadata: { customer: 'c1' } });
    await createThread(t, p, { metadata: { customer: 'c2' } });
    const b = await createThread(t, p, { metadata: { customer: 'c1', n: 7 } });
    const c = await createThread(t, p, { metadata: { customer: 'c1' } });
    await createThread(t, other, { metadata: { customer: 'c1' } });
    await t.http().delete(`/v2/threads/${c.id}`).set('X-API-Key', p.key).expect(200);

    const all = await list(p, 'metadata=customer:c1');
    expect(ids(all.data)).toEqual([b.id, a.id]);
    expect(all).toMatchObject({ object: 'list', has_more: false, first_id: b.id, last_id: a.id });
    expect(ids((await list(p, 'metadata=n:7')).data)).toEqual([b.id]);
    const first = await list(p, 'metadata=customer:c1&limit=1');
    expect([ids(first.data), first.has_more]).toEqual([[b.id], true]);
    expect(ids((await list(p, `metadata=customer:c1&limit=1&after=${first.last_id}`)).data)).toEqual([a.id]);
    expect((await list(p, 'metadata=customer:nobody')).data).toEqual([]);
    // Without the filter, the spec's list as before.
    expect(ids((await list(p, '')).data)).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(ids((await list(other, 'metadata=customer:c1')).data)).not.toContain(a.id);
  });

  it('a filter that is not key:value is a 400', async () => {
    for (const query of ['metadata=novalue', `metadata=${'k'.repeat(65)}:v`, 'metadata=a:%00']) {
      const res = await t.http().get(`/v2/threads?${query}`).set('X-API-Key', p.key);
      expect([query, res.status]).toEqual([query, 400]);
    }
  });
});
