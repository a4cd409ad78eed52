import { createProject, TestProject } from './support/factories';
import { deploy, invokePath, requestLogRows } from './support/invoke-factories';
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

  it("a body the parser cannot read (unknown Content-Encoding) under /v1 answers in OpenAI's error shape", async () => {
    const res = await t.http().post('/v1/conversations').set('X-API-Key', p.key).set('Content-Encoding', 'x-unknown').send('{}');
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ error: { message: 'Request body could not be read', type: expect.any(String), param: null, code: null } });
    // The spec's surfaces keep theirs.
    const v2 = await t.http().post('/v2/threads').set('X-API-Key', p.key).set('Content-Encoding', 'x-unknown').send('{}');
    expect([v2.status, v2.body]).toEqual([415, { error: { message: 'Request body could not be read' } }]);
  });

  it('a /v1/conversations item whose type is named like an Object.prototype member is a 400, not a 500', async () => {
    for (const type of ['toString', '__proto__', 'hasOwnProperty']) {
      const res = await t
        .http()
        .post('/v1/conversations')
        .set('X-API-Key', p.key)
        .send({ items: [{ type, id: 'x' }] });
      expect([type, res.status, res.body.error?.param]).toEqual([type, 400, 'items[0].type']);
    }
    // A well-formed type name Parley does not interpret is stored as given (docs/openai-conversations.md), whatever it is named.
    const res = await t
      .http()
      .post('/v1/conversations')
      .set('X-API-Key', p.key)
      .send({ items: [{ type: 'constructor', id: 'x' }] });
    expect(res.status).toBe(200);
    const items = await t.http().get(`/v1/conversations/${res.body.id}/items`).set('X-API-Key', p.key).expect(200);
    expect(items.body.data).toEqual([{ id: expect.stringMatching(/^itm_/), type: 'constructor' }]);
  });

  it('an X-Forwarded-For that is not an address is not recorded as the client IP (the log column holds 64 characters)', async () => {
    await deploy(t, p, { slug: 'xff' });
    const forwarded = 'not-an-address-'.repeat(10);
    const res = await t
      .http()
      .post(invokePath(p, 'xff'))
      .set('X-API-Key', p.key)
      .set('X-Forwarded-For', forwarded)
      .send({ messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    const logs = await requestLogRows(t, p.projectId);
    expect(logs[logs.length - 1].request_ip).toBeNull();
    // A real address in the header is still what the log shows.
    await t.http().post(invokePath(p, 'xff')).set('X-API-Key', p.key).set('X-Forwarded-For', '203.0.113.7').send({}).expect(200);
    expect((await requestLogRows(t, p.projectId)).pop()!.request_ip).toBe('203.0.113.7');
  });

  it("a version past PostgreSQL's integer range (?v=2147483648) on the langtail prompt routes is the 404 of an unknown version, not a 500", async () => {
    await deploy(t, p, { slug: 'big-v' });
    for (const path of [`/project-prompt/big-v/production?v=2147483648`, `/${p.workspace}/${p.project}/big-v/production?v=9999999999`]) {
      const res = await t.http().get(path).set('X-API-Key', p.key);
      expect([path, res.status]).toEqual([path, 404]);
    }
    await t.http().get('/project-prompt/big-v/production?v=1').set('X-API-Key', p.key).expect(200);
  });

  it('a provider credential whose baseUrl is an object with a non-function toString is a 400, not a 500', async () => {
    // The validator's message converted the value with String(), which throws for {"toString": "x"}.
    const baseUrl = { toString: 'x', constructor: { prototype: { x: 1 } } };
    const put = await t.http().put('/v2/provider-credentials/obj-url').set('X-API-Key', p.key).send({ type: 'openai', baseUrl });
    const post = await t.http().post('/v2/provider-credentials').set('X-API-Key', p.key).send({ name: 'obj-url', type: 'openai', baseUrl });
    for (const res of [put, post]) {
      expect(res.status).toBe(400);
      expect(res.body.error.details).toContain('baseUrl must be an http(s) URL');
    }
    // A string keeps its precise message.
    const res = await t
      .http()
      .put('/v2/provider-credentials/obj-url')
      .set('X-API-Key', p.key)
      .send({ type: 'openai', baseUrl: 'https://u:pw@example.com/v1' });
    expect([res.status, res.body.error.details]).toEqual([
      400,
      ['baseUrl must not carry credentials (user:password@): give the key as apiKey or apiKeyEnv'],
    ]);
  });
});
