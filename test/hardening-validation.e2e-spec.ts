import { RegistryService } from '../src/registry/registry.service';
import { createProject, TestProject } from './support/factories';
import { expectResourceError } from './support/http';
import { deploy, expectInvalidBody, INVOKE_APP_ENV, invokePath, requestLogRows } from './support/invoke-factories';
import { createPrompt, createVersion, deploy as deployVersion, versionBody } from './support/registry-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/**
 * Issue 13's 500 findings and the apiKeyEnv exfiltration, each through HTTP as a client would
 * send it; the database is checked afterwards. Each of these answered 500 (or leaked) before.
 */
describe('hardening: bad values never reach a column or a provider', () => {
  let t: TestApp;
  let p: TestProject;
  const admin = { 'X-API-Key': TEST_ADMIN_KEY };
  const as = (project: TestProject) => ({ 'X-API-Key': project.key });

  beforeAll(async () => {
    t = await createTestApp({
      ...INVOKE_APP_ENV,
      PROVIDER_KEY_BINDINGS: 'PARLEY_PROVIDER_OPENAI_KEY=api.openai.com;PARLEY_PROVIDER_LEGACY=api.openai.com',
    });
    p = await createProject(t);
  });
  afterAll(() => t.close());

  describe('null is refused where it is not a documented value', () => {
    it('POST api-keys {"name": null} → 400 naming the field; no key is created', async () => {
      const path = `/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`;
      const before = (await t.http().get(path).set(admin).expect(200)).body.data.length;
      const res = await t.http().post(path).set(admin).send({ name: null });
      expectResourceError(res, 400, 'Invalid request body');
      expect(res.body.error.details).toEqual(expect.arrayContaining([expect.stringMatching(/^name/)]));
      expect((await t.http().get(path).set(admin).expect(200)).body.data).toHaveLength(before);
      // Absent still means the default.
      expect((await t.http().post(path).set(admin).send({}).expect(200)).body.name).toBe('default');
    });

    it('POST and PUT provider-credentials with "apiKey": null → 400; nothing is stored', async () => {
      const created = await t.http().post('/v2/provider-credentials').set(as(p)).send({ name: 'nully', type: 'openai', apiKey: null });
      expectResourceError(created, 400, 'Invalid request body');
      expect(created.body.error.details).toEqual(expect.arrayContaining([expect.stringMatching(/^apiKey/)]));
      const replaced = await t.http().put('/v2/provider-credentials/nully').set(as(p)).send({ type: 'openai', apiKey: null });
      expectResourceError(replaced, 400, 'Invalid request body');
      const rows = await t.dataSource.query('SELECT name FROM provider_credentials WHERE project_id = $1', [p.projectId]);
      expect(rows).toEqual([]);
    });

    it('null for other undocumented optional fields → 400 (workspace name, createLog, message metadata, version provider, deploy version)', async () => {
      expectResourceError(
        await t.http().post('/v2/workspaces').set(admin).send({ slug: 'nully-ws', name: null }),
        400,
        'Invalid request body',
      );
      const thread = (await t.http().post('/v2/threads').set(as(p)).send({}).expect(200)).body;
      const message = { message: { role: 'user', content: 'hi' }, metadata: null };
      expectResourceError(
        await t.http().post(`/v2/threads/${thread.id}/messages`).set(as(p)).send(message),
        400,
        'Invalid request parameters',
      );
      expectResourceError(await t.http().post('/v2/threads').set(as(p)).send({ createLog: null }), 400, 'Invalid request body');
      await createPrompt(t, p, 'nully');
      expectResourceError(
        await t
          .http()
          .post('/v2/prompts/nully/versions')
          .set(as(p))
          .send(versionBody('x', { provider: null })),
        400,
        'Invalid request body',
      );
      await createVersion(t, p, 'nully');
      expectResourceError(
        await t.http().post('/v2/prompts/nully/deployments').set(as(p)).send({ environment: 'production', version: null }),
        400,
        'Invalid request body',
      );
    });

    it('documented nulls stay accepted: createLog fields ("unknown"), Create Thread metadata (absent)', async () => {
      const res = await t
        .http()
        .post('/v2/threads')
        .set(as(p))
        .send({ metadata: null, createLog: { id: null, stream: null, startedAt: null } })
        .expect(200);
      expect(res.body.createLog).toEqual({ id: null, stream: null, startedAt: null });
      expect(res.body.metadata).toEqual({});
    });
  });

  describe('strings are bounded by the column they land in', () => {
    it('invoke with a model override longer than 200 characters → 400 issue; no provider call, no log gap', async () => {
      const slug = 'long-model';
      await deploy(t, p, { slug });
      const logsBefore = (await requestLogRows(t, p.projectId)).length;
      const res = await t
        .http()
        .post(invokePath(p, slug))
        .set(as(p))
        .send({ model: 'm'.repeat(201), messages: [{ role: 'user', content: 'hi' }] });
      expectInvalidBody(res, [
        { code: 'invalid_type', keys: [], path: ['model'], message: expect.stringMatching(/model name of at most 200 characters/) },
      ]);
      expect(await requestLogRows(t, p.projectId)).toHaveLength(logsBefore);
      // 200 characters is storable: the call goes through to the provider and is logged.
      const atLimit = await t
        .http()
        .post(invokePath(p, slug))
        .set(as(p))
        .send({ model: 'm'.repeat(200), messages: [{ role: 'user', content: 'hi' }] });
      // The local provider has no such model: its own error, recorded like any provider failure.
      expect(atLimit.status).toBeLessThan(500);
      expect(atLimit.body.error).not.toBe('Invalid request body');
      const logs = await requestLogRows(t, p.projectId);
      expect(logs).toHaveLength(logsBefore + 1);
      expect(logs[logs.length - 1].model).toBe('m'.repeat(200));
    });

    it('management strings longer than their columns → 400 (names 200, provider 64, slugs 64)', async () => {
      expectResourceError(
        await t
          .http()
          .post('/v2/workspaces')
          .set(admin)
          .send({ slug: 'long-name-ws', name: 'n'.repeat(201) }),
        400,
        'Invalid request body',
      );
      const path = `/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`;
      expectResourceError(
        await t
          .http()
          .post(path)
          .set(admin)
          .send({ name: 'n'.repeat(201) }),
        400,
        'Invalid request body',
      );
      expectResourceError(
        await t
          .http()
          .post('/v2/prompts/nully/versions')
          .set(as(p))
          .send(versionBody('x', { provider: 'p'.repeat(65) })),
        400,
        'Invalid request body',
      );
      expectResourceError(
        await t
          .http()
          .get('/v2/deployments')
          .query({ environment: 'e'.repeat(65) })
          .set(as(p)),
        400,
        'Invalid request parameters',
      );
    });
  });

  describe('apiKeyEnv only names variables under the operator prefix (PARLEY_PROVIDER_ by default)', () => {
    const outside = ['HOME', 'PATH', 'AWS_SECRET_ACCESS_KEY', 'PARLEY_PROVIDER_'];

    it('REST: POST and PUT refuse a variable outside the prefix, naming the prefix', async () => {
      for (const apiKeyEnv of outside) {
        const body = { type: 'openai', baseUrl: 'https://collector.example.invalid/v1', apiKeyEnv };
        const created = await t
          .http()
          .post('/v2/provider-credentials')
          .set(as(p))
          .send({ name: 'exfil', ...body });
        const replaced = await t.http().put('/v2/provider-credentials/exfil').set(as(p)).send(body);
        for (const res of [created, replaced]) {
          expectResourceError(res, 400, 'Invalid request body');
          expect(res.body.error.details).toEqual([expect.stringContaining('apiKeyEnv must start with "PARLEY_PROVIDER_"')]);
        }
      }
      await t
        .http()
        .post('/v2/provider-credentials')
        .set(as(p))
        .send({ name: 'allowed', type: 'openai', apiKeyEnv: 'PARLEY_PROVIDER_OPENAI_KEY' })
        .expect(200);
    });

    it('apply: a provider naming a variable outside the prefix → 400 with its path; nothing is applied', async () => {
      const res = await t
        .http()
        .post('/v2/apply')
        .set(as(p))
        .send({
          workspace: p.workspace,
          project: p.project,
          providers: [{ name: 'exfil', type: 'openai', baseUrl: 'https://collector.example.invalid/v1', apiKeyEnv: 'HOME' }],
        });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([
        expect.stringMatching(/^providers\[0\]\.apiKeyEnv: apiKeyEnv must start with "PARLEY_PROVIDER_"/),
      ]);
      expect(
        await t.dataSource.query("SELECT name FROM provider_credentials WHERE project_id = $1 AND name = 'exfil'", [p.projectId]),
      ).toEqual([]);
    });

    it('call time: a stored row naming another variable is never read', async () => {
      const q = await createProject(t);
      await t
        .http()
        .post('/v2/provider-credentials')
        .set(as(q))
        .send({ name: 'legacy', type: 'openai', apiKeyEnv: 'PARLEY_PROVIDER_LEGACY' })
        .expect(200);
      // A row written before the rule existed (or under another prefix).
      await t.dataSource.query("UPDATE provider_credentials SET api_key_env = 'HOME' WHERE project_id = $1 AND name = 'legacy'", [
        q.projectId,
      ]);
      await createPrompt(t, q, 'uses-legacy');
      await createVersion(t, q, 'uses-legacy', versionBody('x', { provider: 'legacy', model: 'gpt-4o' }));
      await deployVersion(t, q, 'uses-legacy', 'production');
      expect(process.env.HOME).toBeTruthy();
      const resolved = await t.app.get(RegistryService).resolveForInvoke(q.projectId, 'uses-legacy', 'production');
      expect(resolved!.provider.apiKey).toBeUndefined();
    });
  });
});
