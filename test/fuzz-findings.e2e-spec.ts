import { createProject, TestProject } from './support/factories';
import { createTestApp, TestApp } from './support/test-app';

/** What test/fuzz.e2e-spec.ts found, one test each, so a fix cannot regress unnoticed. */
describe('fuzz findings', () => {
  let t: TestApp;
  let p: TestProject;

  beforeAll(async () => {
    t = await createTestApp();
    p = await createProject(t);
  });
  afterAll(() => t.close());

  it('a body the parser cannot read (unknown Content-Encoding) under /v1 answers in OpenAI\'s error shape', async () => {
    const res = await t.http().post('/v1/conversations').set('X-API-Key', p.key).set('Content-Encoding', 'x-unknown').send('{}');
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ error: { message: 'Request body could not be read', type: expect.any(String), param: null, code: null } });
    // The spec's surfaces keep theirs.
    const v2 = await t.http().post('/v2/threads').set('X-API-Key', p.key).set('Content-Encoding', 'x-unknown').send('{}');
    expect([v2.status, v2.body]).toEqual([415, { error: { message: 'Request body could not be read' } }]);
  });
});
