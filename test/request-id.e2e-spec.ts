import { createProject, TestProject } from './support/factories';
import { createTestApp, TestApp } from './support/test-app';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** X-Request-Id on every response: the load balancer's when sane, otherwise a new UUIDv7. */
describe('X-Request-Id', () => {
  let t: TestApp;
  let p: TestProject;

  beforeAll(async () => {
    t = await createTestApp({ BODY_LIMIT: '1kb' });
    p = await createProject(t);
  });
  afterAll(() => t.close());

  it('echoes a sane incoming id, on success and on errors', async () => {
    const ok = await t.http().get('/v2/threads').set('X-API-Key', p.key).set('X-Request-Id', 'lb-7f3a:01.2').expect(200);
    expect(ok.headers['x-request-id']).toBe('lb-7f3a:01.2');
    const unauthorized = await t.http().get('/v2/threads').set('X-Request-Id', 'req-401').expect(401);
    expect(unauthorized.headers['x-request-id']).toBe('req-401');
    const missing = await t.http().get('/no/such/route').set('X-Request-Id', 'req-404').expect(404);
    expect(missing.headers['x-request-id']).toBe('req-404');
    const tooLarge = await t
      .http()
      .post('/v2/threads')
      .set('X-API-Key', p.key)
      .set('X-Request-Id', 'req-413')
      .send({ metadata: { a: 'x'.repeat(2000) } })
      .expect(413);
    expect(tooLarge.headers['x-request-id']).toBe('req-413');
  });

  it('generates a UUIDv7 when the header is absent, too long or carries odd characters', async () => {
    const ids: string[] = [];
    for (const given of [undefined, 'x'.repeat(129), 'a b', '<script>']) {
      const req = t.http().get('/health');
      const res = await (given === undefined ? req : req.set('X-Request-Id', given)).expect(200);
      ids.push(res.headers['x-request-id']);
    }
    for (const id of ids) expect(id).toMatch(UUID_V7);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
