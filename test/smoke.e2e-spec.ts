import { createProject, createThread } from './support/factories';
import { createTestApp, TestApp } from './support/test-app';

describe('smoke', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  it('creates and reads a thread', async () => {
    const p = await createProject(t);
    const thread = await createThread(t, p, { metadata: { a: 1 } });
    const res = await t.http().get(`/v2/threads/${thread.id}`).set('X-API-Key', p.key).expect(200);
    expect(res.body.metadata).toEqual({ a: 1 });
  });
});
