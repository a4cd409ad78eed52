import { createProject, TestProject } from './support/factories';
import { expectResourceError } from './support/http';
import { deploy, INVOKE_APP_ENV, invokePath } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/**
 * Issue 24's 500s, each as the client sent it (docs/security.md "Bounded inputs"): bodies nested
 * deeper than the validators' stack, NUL bytes in query strings and paths that reached PostgreSQL,
 * and concurrent PUTs of limits that raced on insert. The database is checked afterwards.
 */
describe('hardening: bounded bodies, storable text, settings upserts', () => {
  let t: TestApp;
  let p: TestProject;
  const admin = { 'X-API-Key': TEST_ADMIN_KEY };
  const as = (project: TestProject) => ({ 'X-API-Key': project.key });
  /** `[[[…]]]`, 1,800 levels: what overflowed class-validator's stack inside createLog and the limits bodies. */
  const deep = (depth = 1800) => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);
  const deepText = (depth = 1800) => `{"createLog":{"id":${'['.repeat(depth)}${']'.repeat(depth)}}}`;

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    p = await createProject(t);
    await deploy(t, p, { slug: 'bounded' });
  });
  afterAll(() => t.close());

  describe('a body nested deeper than 64 levels is refused before any validator walks it', () => {
    const tooDeep = 'the body nests arrays and objects more than 64 levels deep';

    it('POST /v2/threads with createLog nested 1,800 deep → 400 "Invalid request body"; no thread is stored', async () => {
      const before = await t.dataSource.query('SELECT count(*)::int AS n FROM threads WHERE project_id = $1', [p.projectId]);
      const res = await t.http().post('/v2/threads').set(as(p)).set('Content-Type', 'application/json').send(deepText());
      expectResourceError(res, 400, 'Invalid request body');
      expect(res.body.error.details).toEqual([tooDeep]);
      const after = await t.dataSource.query('SELECT count(*)::int AS n FROM threads WHERE project_id = $1', [p.projectId]);
      expect(after).toEqual(before);
    });

    it('PUT limits (project and key) with deep values → 400; the limits are unchanged', async () => {
      const base = `/v2/workspaces/${p.workspace}/projects/${p.project}`;
      for (const [path, body] of [
        [`${base}/limits`, { project: { requestsPerMinute: deep() } }],
        [`${base}/limits`, { keys: deep() }],
        [`${base}/api-keys/${p.keyId}/limits`, { requestsPerMinute: deep() }],
      ] as const) {
        const res = await t.http().put(path).set(admin).send(body);
        expectResourceError(res, 400, 'Invalid request body');
        expect(res.body.error.details).toEqual([tooDeep]);
      }
      expect((await t.dataSource.query('SELECT * FROM limit_settings WHERE project_id = $1', [p.projectId])).length).toBe(0);
    });

    it('every other parser answers its own documented 400: invoke issues, /v1 OpenAI errors, import, apply', async () => {
      const invoke = await t
        .http()
        .post(invokePath(p, 'bounded'))
        .set(as(p))
        .send({ variables: { a: deep() } });
      expect(invoke.status).toBe(400);
      expect(invoke.body).toEqual({
        error: 'Invalid request body',
        issues: [{ code: 'invalid_type', keys: [], path: [], message: `Expected a JSON object body, but ${tooDeep}` }],
      });
      for (const path of ['/v1/chat/completions', '/v1/responses', '/v1/conversations']) {
        const res = await t.http().post(path).set(as(p)).send({ metadata: deep() });
        expect({ path, status: res.status }).toEqual({ path, status: 400 });
        expect(res.body.error.message).toBe(`We could not parse the JSON body of your request: ${tooDeep}.`);
      }
      const imported = await t.http().post('/v2/import').set(as(p)).send({ records: deep() });
      expectResourceError(imported, 400, expect.any(String));
      expect(imported.body.error.details).toEqual([`body: ${tooDeep}`]);
      const applied = await t.http().post('/v2/apply').set(as(p)).send({ prompts: deep() });
      expect(applied.status).toBe(400);
    });

    it('64 levels pass the parser (the validator answers about the value); 65 do not', async () => {
      const arrays = (levels: number) => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`);
      // The body object is level 1: metadata holding 63 arrays is 64 levels.
      const deepest = await t
        .http()
        .post('/v2/threads')
        .set(as(p))
        .send({ metadata: arrays(63) });
      expectResourceError(deepest, 400, 'Invalid request body');
      expect(deepest.body.error.details).toEqual(['metadata must be an object of key-value pairs']);
      const over = await t
        .http()
        .post('/v2/threads')
        .set(as(p))
        .send({ metadata: arrays(64) });
      expect(over.body.error.details).toEqual([tooDeep]);
      // Brackets inside strings are text, not nesting.
      await t
        .http()
        .post('/v2/threads')
        .set(as(p))
        .send({ metadata: { brackets: '['.repeat(500) } })
        .expect(200);
    });
  });

  describe('text PostgreSQL cannot store never reaches it from a URL', () => {
    it("GET /v1/conversations?metadata[k]=%00 → 400 in OpenAI's shape naming the parameter, not a 500", async () => {
      for (const [query, param] of [
        ['metadata[k]=a%00b', 'metadata[k]'],
        ['metadata[%00]=v', 'metadata[\\u0000]'],
        ['after=%00', 'after'],
      ]) {
        const res = await t.http().get(`/v1/conversations?${query}`).set(as(p));
        expect({ query, status: res.status }).toEqual({ query, status: 400 });
        expect(res.body.error).toEqual({
          message: expect.stringContaining('U+0000'),
          type: 'invalid_request_error',
          param,
          code: 'invalid_value',
        });
      }
    });

    it('a NUL in a /v2 filter → 400 "Invalid request parameters" naming it', async () => {
      for (const path of ['/v2/threads?metadata[k]=%00', '/v2/logs?model=%00', '/v2/logs?metadata=k:%00', '/v2/prompts?after=%00']) {
        const res = await t.http().get(path).set(as(p));
        expectResourceError(res, 400, 'Invalid request parameters');
        expect(res.body.error.details).toEqual(expect.arrayContaining([expect.stringContaining('must not contain U+0000')]));
      }
    });

    it('a NUL in a slug or name of a path → 4xx with the documented shape, never a 500', async () => {
      const paths: Array<[string, Record<string, string>]> = [
        ['/v2/prompts/a%00b', as(p)],
        ['/v2/prompts/a%00b/versions', as(p)],
        ['/v2/provider-credentials/a%00b', as(p)],
        [`${invokePath(p, 'bounded')}%00`, as(p)],
        [`/v2/workspaces/${p.workspace}%00/projects`, admin],
        [`/v2/workspaces/${p.workspace}/projects/${p.project}%00/limits`, admin],
      ];
      for (const [path, headers] of paths) {
        const res = await t.http().get(path).set(headers);
        expect({ path, status: res.status }).toEqual({ path, status: expect.any(Number) });
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
      }
      const invoked = await t
        .http()
        .post(`${invokePath(p, 'bounded')}%00`)
        .set(as(p))
        .send({});
      expect(invoked.status).toBeLessThan(500);
    });
  });

  describe('settings are upserts', () => {
    it('80 concurrent PUT limits on one project all answer 200 and leave one row per subject', async () => {
      const q = await createProject(t);
      const path = `/v2/workspaces/${q.workspace}/projects/${q.project}/limits`;
      const answers = await Promise.all(
        Array.from({ length: 80 }, (_, i) =>
          t
            .http()
            .put(path)
            .set(admin)
            .send({ project: { requestsPerMinute: 100 + i }, keys: { concurrentInvokes: 1 + (i % 5) } }),
        ),
      );
      expect(answers.map((res) => res.status).filter((status) => status !== 200)).toEqual([]);
      const rows = await t.dataSource.query(
        'SELECT subject, requests_per_minute FROM limit_settings WHERE project_id = $1 ORDER BY subject',
        [q.projectId],
      );
      expect(rows.map((row: { subject: string }) => row.subject)).toEqual(['keys', 'project']);
      const keyPath = `/v2/workspaces/${q.workspace}/projects/${q.project}/api-keys/${q.keyId}/limits`;
      const keyAnswers = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          t
            .http()
            .put(keyPath)
            .set(admin)
            .send({ tokensPerDay: 1000 + i }),
        ),
      );
      expect(keyAnswers.map((res) => res.status).filter((status) => status !== 200)).toEqual([]);
    });
  });
});
