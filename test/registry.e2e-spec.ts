import { RegistryService } from '../src/registry/registry.service';
import { createProject, TestProject } from './support/factories';
import { createPrompt, createVersion, deploy, deployedPrompt, versionBody } from './support/registry-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

describe('registry: prompts, versions, environments, deployments', () => {
  let t: TestApp;
  let p: TestProject;
  const as = (project: TestProject) => ({ 'X-API-Key': project.key });

  beforeAll(async () => {
    t = await createTestApp();
    p = await createProject(t);
  });
  afterAll(() => t.close());

  describe('environments', () => {
    it('a new project has preview, staging and production; more can be added', async () => {
      const q = await createProject(t);
      const listed = await t.http().get('/v2/environments').set(as(q)).expect(200);
      expect(listed.body.object).toBe('list');
      expect(listed.body.data.map((e: { slug: string }) => e.slug)).toEqual(['preview', 'production', 'staging']);
      const created = await t.http().post('/v2/environments').set(as(q)).send({ slug: 'qa' }).expect(200);
      expect(Object.keys(created.body).sort()).toEqual(['createdAt', 'id', 'protection', 'slug']);
      // A new environment is unprotected (docs/security.md, "Approvals").
      expect(created.body.protection).toBeNull();
      await t.http().post('/v2/environments').set(as(q)).send({ slug: 'qa' }).expect(409);
      const bad = await t.http().post('/v2/environments').set(as(q)).send({ slug: 'Not A Slug', extra: 1 }).expect(400);
      expect(bad.body.error.message).toBe('Invalid request body');
      expect(bad.body.error.details).toEqual(expect.arrayContaining([expect.stringMatching(/^slug must be/), 'extra: unknown field']));
    });
  });

  describe('prompts', () => {
    it('creates, lists and gets prompts and assistants in one slug namespace', async () => {
      const prompt = await createPrompt(t, p, 'ns-one');
      expect(prompt).toMatchObject({ slug: 'ns-one', kind: 'prompt', latestVersion: null, deployments: [] });
      await createPrompt(t, p, 'ns-two', 'assistant');
      const clash = await t.http().post('/v2/prompts').set(as(p)).send({ slug: 'ns-one', kind: 'assistant' }).expect(409);
      expect(clash.body.error.message).toMatch(/already exists/);
      const got = await t.http().get('/v2/prompts/ns-two').set(as(p)).expect(200);
      expect(got.body.kind).toBe('assistant');
      const list = await t.http().get('/v2/prompts?limit=100').set(as(p)).expect(200);
      expect(list.body.data.map((x: { slug: string }) => x.slug)).toEqual(expect.arrayContaining(['ns-one', 'ns-two']));
      await t
        .http()
        .get('/v2/prompts/missing')
        .set(as(p))
        .expect(404, { error: { message: 'Prompt not found' } });
    });

    it('paginates the prompt list, each prompt with its own current deployments', async () => {
      const q = await createProject(t);
      for (const slug of ['pa', 'pb', 'pc']) await createPrompt(t, q, slug);
      for (const slug of ['pb', 'pc']) {
        await createVersion(t, q, slug);
        await deploy(t, q, slug, 'production');
      }
      await deploy(t, q, 'pc', 'staging');
      const environmentsOf = (page: { data: { slug: string; deployments: { environment: string }[] }[] }) =>
        page.data.map((x) => [x.slug, x.deployments.map((d) => d.environment).sort()]);
      const first = await t.http().get('/v2/prompts?limit=2').set(as(q)).expect(200);
      expect(environmentsOf(first.body)).toEqual([
        ['pa', []],
        ['pb', ['production']],
      ]);
      expect(first.body.has_more).toBe(true);
      const second = await t.http().get(`/v2/prompts?limit=2&after=${first.body.last_id}`).set(as(q)).expect(200);
      expect(environmentsOf(second.body)).toEqual([['pc', ['production', 'staging']]]);
      expect(second.body.has_more).toBe(false);
    });
  });

  describe('versions', () => {
    it('numbers versions, hashes content and declares template variables plus defaults', async () => {
      await createPrompt(t, p, 'v-basic');
      const v1 = await createVersion(
        t,
        p,
        'v-basic',
        versionBody('Hi {{name}}, {{#if vip}}welcome back{{/if}}', { variables: { tone: 'warm' } }),
      );
      expect(v1).toMatchObject({
        slug: 'v-basic',
        kind: 'prompt',
        version: 1,
        provider: 'local',
        model: 'echo',
        parameters: {},
        tools: [],
        message: null,
      });
      expect(v1.contentHash).toMatch(/^[0-9a-f]{64}$/);
      expect(v1.declaredVariables).toEqual(['name', 'tone', 'vip']);
      const v2 = await createVersion(t, p, 'v-basic', versionBody('Changed {{name}}', { message: 'shorter' }));
      expect(v2.version).toBe(2);
      expect(v2.contentHash).not.toBe(v1.contentHash);
      const got = await t.http().get('/v2/prompts/v-basic').set(as(p)).expect(200);
      expect(got.body.latestVersion).toBe(2);
    });

    it('never changes a version: later versions leave earlier ones as they were, and there is no way to edit one', async () => {
      await createPrompt(t, p, 'v-immutable');
      const v1 = await createVersion(t, p, 'v-immutable', versionBody('First {{a}}', { parameters: { temperature: 0.5 } }));
      await createVersion(t, p, 'v-immutable', versionBody('Second {{b}}', { parameters: { temperature: 1 } }));
      const again = await t.http().get('/v2/prompts/v-immutable/versions/1').set(as(p)).expect(200);
      expect(again.body).toEqual(v1);
      for (const method of ['put', 'patch', 'post', 'delete'] as const) {
        const res = await t.http()[method]('/v2/prompts/v-immutable/versions/1').set(as(p)).send({ model: 'other' });
        expect(res.status).toBe(404);
      }
      const rows = await t.dataSource.query(
        `SELECT v.version, v.model FROM prompt_versions v JOIN prompts p ON p.project_id = v.project_id AND p.id = v.prompt_id
          WHERE p.project_id = $1 AND p.slug = $2 ORDER BY v.version`,
        [p.projectId, 'v-immutable'],
      );
      expect(rows).toEqual([
        { version: 1, model: 'echo' },
        { version: 2, model: 'echo' },
      ]);
    });

    it('lists versions newest first, with pagination, and 404s unknown numbers', async () => {
      await createPrompt(t, p, 'v-list');
      for (let i = 0; i < 3; i++) await createVersion(t, p, 'v-list', versionBody(`n ${i}`));
      const page = await t.http().get('/v2/prompts/v-list/versions?limit=2').set(as(p)).expect(200);
      expect(page.body.data.map((v: { version: number }) => v.version)).toEqual([3, 2]);
      const next = await t.http().get(`/v2/prompts/v-list/versions?limit=2&after=${page.body.last_id}`).set(as(p)).expect(200);
      expect(next.body.data.map((v: { version: number }) => v.version)).toEqual([1]);
      for (const bad of ['9', '0', 'abc', '1.5']) {
        await t
          .http()
          .get(`/v2/prompts/v-list/versions/${bad}`)
          .set(as(p))
          .expect(404, { error: { message: 'Version not found' } });
      }
    });

    it('rejects a template that does not compile with a 400 naming the message and the line', async () => {
      await createPrompt(t, p, 'v-broken');
      const res = await t
        .http()
        .post('/v2/prompts/v-broken/versions')
        .set(as(p))
        .send({
          model: 'echo',
          template: [
            { role: 'system', content: 'ok' },
            { role: 'user', content: 'line one\nline two {{#if x}} never closed' },
          ],
        })
        .expect(400);
      expect(res.body.error.message).toBe('Invalid request body');
      expect(res.body.error.details).toHaveLength(1);
      expect(res.body.error.details[0]).toMatch(/^template\.1\.content: template does not compile: .*line 2/);
      const unknownHelper = await t.http().post('/v2/prompts/v-broken/versions').set(as(p)).send(versionBody('{{shout name}}')).expect(400);
      expect(unknownHelper.body.error.details[0]).toMatch(/^template\.0\.content: .*"shout" is not a helper.*line 1/);
      await t
        .http()
        .get('/v2/prompts/v-broken/versions')
        .set(as(p))
        .expect(200)
        .expect((r) => expect(r.body.data).toEqual([]));
    });

    it('names every problem of a bad body: unknown fields, wrong types, out-of-range parameters', async () => {
      await createPrompt(t, p, 'v-bad');
      const res = await t
        .http()
        .post('/v2/prompts/v-bad/versions')
        .set(as(p))
        .send({ template: 'hello', model: 5, temprature: 1, parameters: { temperature: 5, foo: true }, tools: [{ type: 'nope' }] })
        .expect(400);
      const details: string[] = res.body.error.details;
      expect(res.body.error.message).toBe('Invalid request body');
      for (const field of ['template', 'model', 'temprature', 'parameters', 'tools']) {
        expect(details.some((d) => d.startsWith(field))).toBe(true);
      }
      expect(details).toContain('temprature: unknown field');
      expect(details.join('\n')).toMatch(/parameters\.temperature: Expected number between 0 and 2/);
      expect(details.join('\n')).toMatch(/parameters: Unrecognized key: "foo"/);
    });

    it('refuses a provider the project does not have, and tool_choice naming a missing tool', async () => {
      await createPrompt(t, p, 'v-provider');
      const res = await t
        .http()
        .post('/v2/prompts/v-provider/versions')
        .set(as(p))
        .send(versionBody('x', { provider: 'openai' }))
        .expect(400);
      expect(res.body.error.details).toEqual([expect.stringMatching(/^provider: no provider "openai"/)]);
      const tool = await t
        .http()
        .post('/v2/prompts/v-provider/versions')
        .set(as(p))
        .send(versionBody('x', { parameters: { tool_choice: { type: 'function', function: { name: 'lookup' } } } }))
        .expect(400);
      expect(tool.body.error.details).toEqual([expect.stringMatching(/^parameters\.tool_choice: names function "lookup"/)]);
    });

    it('numbers concurrent versions 1..N without gaps or duplicates', async () => {
      await createPrompt(t, p, 'v-race');
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => createVersion(t, p, 'v-race', versionBody(`race ${i}`))));
      expect(results.map((v) => v.version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    });
  });

  describe('deployments', () => {
    it('deploys, replaces on redeploy with an incremented deployment version, and keeps the history', async () => {
      await createPrompt(t, p, 'd-flow', 'assistant');
      await createVersion(t, p, 'd-flow', versionBody('one'));
      await createVersion(t, p, 'd-flow', versionBody('two'));
      const first = await deploy(t, p, 'd-flow', 'production', 1);
      expect(first).toMatchObject({
        slug: 'd-flow',
        kind: 'assistant',
        environment: 'production',
        version: 1,
        deploymentVersion: 1,
        current: true,
        replacedAt: null,
      });
      const second = await deploy(t, p, 'd-flow', 'production');
      expect(second).toMatchObject({ version: 2, deploymentVersion: 2, current: true });
      const same = await deploy(t, p, 'd-flow', 'production', 2);
      expect(same.id).toBe(second.id);
      const back = await deploy(t, p, 'd-flow', 'production', 1);
      expect(back).toMatchObject({ version: 1, deploymentVersion: 3 });
      await deploy(t, p, 'd-flow', 'staging', 2);

      const history = await t.http().get('/v2/prompts/d-flow/deployments?environment=production').set(as(p)).expect(200);
      expect(
        history.body.data.map((d: { version: number; deploymentVersion: number; current: boolean }) => [
          d.version,
          d.deploymentVersion,
          d.current,
        ]),
      ).toEqual([
        [1, 3, true],
        [2, 2, false],
        [1, 1, false],
      ]);
      expect(history.body.data[1].replacedAt).not.toBeNull();

      const current = await t.http().get('/v2/deployments?slug=d-flow').set(as(p)).expect(200);
      expect(current.body.data.map((d: { environment: string; version: number }) => [d.environment, d.version])).toEqual([
        ['production', 1],
        ['staging', 2],
      ]);
      expect(Object.keys(current.body.data[0])).toEqual(expect.arrayContaining(['slug', 'kind', 'environment', 'version', 'deployedAt']));
      const prompt = await t.http().get('/v2/prompts/d-flow').set(as(p)).expect(200);
      expect(prompt.body.deployments).toHaveLength(2);
    });

    it('refuses unknown environments and versions, naming each', async () => {
      await createPrompt(t, p, 'd-bad');
      const none = await t.http().post('/v2/prompts/d-bad/deployments').set(as(p)).send({ environment: 'production' }).expect(400);
      expect(none.body.error.details).toEqual(['version: "d-bad" has no versions yet']);
      await createVersion(t, p, 'd-bad');
      const res = await t.http().post('/v2/prompts/d-bad/deployments').set(as(p)).send({ environment: 'nowhere', version: 7 }).expect(400);
      expect(res.body.error.details).toEqual([
        'environment: no environment "nowhere" in this project',
        'version: "d-bad" has no version 7',
      ]);
      await t.http().post('/v2/prompts/missing/deployments').set(as(p)).send({ environment: 'production' }).expect(404);
      // Beyond what the integer column holds: a 400 naming the field, not a failed query.
      for (const version of [2 ** 31, 1e300]) {
        const huge = await t
          .http()
          .post('/v2/prompts/d-bad/deployments')
          .set(as(p))
          .send({ environment: 'production', version })
          .expect(400);
        expect(huge.body.error.details).toEqual([expect.stringMatching(/^version must not be greater than 2147483647/)]);
      }
    });

    it('keeps one current deployment under concurrent redeploys', async () => {
      await createPrompt(t, p, 'd-race');
      for (let i = 0; i < 4; i++) await createVersion(t, p, 'd-race', versionBody(`r${i}`));
      await Promise.all([1, 2, 3, 4].map((v) => deploy(t, p, 'd-race', 'production', v)));
      const history = await t.http().get('/v2/prompts/d-race/deployments').set(as(p)).expect(200);
      expect(history.body.data.filter((d: { current: boolean }) => d.current)).toHaveLength(1);
      expect(history.body.data.map((d: { deploymentVersion: number }) => d.deploymentVersion).sort()).toEqual([1, 2, 3, 4]);
    });
  });

  describe('resolveForInvoke', () => {
    it('resolves the deployed version, compiled, with its provider and settings', async () => {
      const registry = t.app.get(RegistryService);
      const body = versionBody('Hello {{name}} from {{team}}', {
        variables: { team: 'ops' },
        parameters: { temperature: 0.3, stop: ['END'] },
      });
      const { version, deployment } = await deployedPrompt(t, p, 'r-basic', 'assistant', body);
      const resolved = await registry.resolveForInvoke(p.projectId, 'r-basic', 'production');
      expect(resolved).toMatchObject({
        kind: 'assistant',
        promptSlug: 'r-basic',
        environment: 'production',
        deploymentId: deployment.id,
        deploymentVersion: 1,
        pinned: false,
        versionId: version.id,
        version: 1,
        contentHash: version.contentHash,
        declaredVariables: ['name', 'team'],
        variableDefaults: { team: 'ops' },
        provider: { name: 'local', type: 'local', credentialId: null },
        model: 'echo',
        parameters: { temperature: 0.3, stop: ['END'] },
        tools: [],
      });
      expect(resolved!.compiled.render({ name: 'Ada', team: '{{name}}' })[0].content).toBe('Hello Ada from {{name}}');
      expect(await registry.resolveForInvoke(p.projectId, 'r-basic', 'staging')).toBeNull();
      expect(await registry.resolveForInvoke(p.projectId, 'r-basic', 'nowhere')).toBeNull();
      expect(await registry.resolveForInvoke(p.projectId, 'nothing', 'production')).toBeNull();
    });

    it('sees a new deployment at once on the instance that made it, and pins versions with v', async () => {
      const registry = t.app.get(RegistryService);
      await deployedPrompt(t, p, 'r-cache', 'prompt', versionBody('one'));
      expect((await registry.resolveForInvoke(p.projectId, 'r-cache', 'production'))!.version).toBe(1);
      await createVersion(t, p, 'r-cache', versionBody('two'));
      // Still v1: creating a version does not deploy it.
      expect((await registry.resolveForInvoke(p.projectId, 'r-cache', 'production'))!.version).toBe(1);
      await deploy(t, p, 'r-cache', 'production', 2);
      const now = await registry.resolveForInvoke(p.projectId, 'r-cache', 'production');
      expect([now!.version, now!.deploymentVersion]).toEqual([2, 2]);

      const pinned = await registry.resolveForInvoke(p.projectId, 'r-cache', 'production', 1);
      expect(pinned).toMatchObject({ version: 1, pinned: true, deploymentVersion: 2 });
      expect(await registry.resolveForInvoke(p.projectId, 'r-cache', 'staging', 2)).toMatchObject({
        version: 2,
        deploymentId: null,
        deploymentVersion: null,
      });
      expect(await registry.resolveForInvoke(p.projectId, 'r-cache', 'production', 3)).toBeNull();
      expect(await registry.resolveForInvoke(p.projectId, 'r-cache', 'nowhere', 1)).toBeNull();
      expect(await registry.resolveForInvoke(p.projectId, 'r-cache', 'production', 0)).toBeNull();
    });
  });

  describe('isolation and access', () => {
    it('keeps projects apart: same slugs, separate prompts, nothing visible across', async () => {
      const a = await createProject(t);
      const b = await createProject(t);
      await deployedPrompt(t, a, 'shared-slug');
      await t.http().get('/v2/prompts/shared-slug').set(as(b)).expect(404);
      await t.http().get('/v2/prompts/shared-slug/versions').set(as(b)).expect(404);
      await t.http().post('/v2/prompts/shared-slug/deployments').set(as(b)).send({ environment: 'production' }).expect(404);
      expect((await t.http().get('/v2/deployments').set(as(b)).expect(200)).body.data).toEqual([]);
      expect((await t.http().get('/v2/prompts').set(as(b)).expect(200)).body.data).toEqual([]);
      await createPrompt(t, b, 'shared-slug', 'assistant');
      expect(await t.app.get(RegistryService).resolveForInvoke(b.projectId, 'shared-slug', 'production')).toBeNull();
      expect(await t.app.get(RegistryService).resolveForInvoke(a.projectId, 'shared-slug', 'production')).not.toBeNull();
    });

    it('treats slugs no prompt can have (NUL bytes, too long) as not found, a NUL in a filter as a 400, never a 500', async () => {
      const key = as(p);
      await t.http().get('/v2/prompts/a%00b').set(key).expect(404);
      await t
        .http()
        .get(`/v2/prompts/${'a'.repeat(300)}/versions`)
        .set(key)
        .expect(404);
      await t.http().post('/v2/prompts/a%00b/deployments').set(key).send({ environment: 'production' }).expect(404);
      // Filters are query strings: a NUL in one is refused like in every other (docs/security.md, "Bounded inputs").
      expect((await t.http().get('/v2/deployments?slug=a%00b&environment=%00').set(key).expect(400)).body).toEqual({
        error: {
          message: 'Invalid request parameters',
          details: ['slug: must not contain U+0000', 'environment: must not contain U+0000'],
        },
      });
      await t.http().delete('/v2/provider-credentials/a%00b').set(key).expect(404);
      // Only a successful export is YAML: its errors are JSON like every other error.
      const foreign = await t.http().get('/v2/export?workspace=a%00&project=b').set(key);
      const missing = await t.http().get('/v2/export?workspace=a%00&project=b').set('X-API-Key', TEST_ADMIN_KEY);
      for (const res of [foreign, missing]) {
        expect([res.status, res.headers['content-type'], res.body]).toEqual([
          400,
          'application/json; charset=utf-8',
          { error: { message: expect.any(String), details: ['workspace: must not contain U+0000'] } },
        ]);
      }
      const other = await t.http().get(`/v2/export?workspace=${p.workspace}x&project=b`).set(key).expect(403);
      expect([other.headers['content-type'], other.body]).toEqual([
        'application/json; charset=utf-8',
        { error: 'Forbidden', message: 'API key does not belong to this project' },
      ]);
      expect(await t.app.get(RegistryService).resolveForInvoke(p.projectId, 'a\u0000', 'production')).toBeNull();
      expect(await t.app.get(RegistryService).resolveForInvoke(p.projectId, 'x', 'prod\u0000')).toBeNull();
    });

    it('needs a project key: 401 without one, 403 with the admin key', async () => {
      await t.http().get('/v2/prompts').expect(401, { error: 'Unauthorized', message: 'Invalid API key' });
      const admin = await t.http().get('/v2/deployments').set('X-API-Key', TEST_ADMIN_KEY).expect(403);
      expect(admin.body.error).toBe('Forbidden');
    });

    it('documents every registry endpoint in Swagger', async () => {
      const doc = await t.http().get('/docs-json').expect(200);
      for (const path of [
        '/v2/prompts',
        '/v2/prompts/{slug}',
        '/v2/prompts/{slug}/versions',
        '/v2/prompts/{slug}/versions/{version}',
        '/v2/prompts/{slug}/deployments',
        '/v2/deployments',
        '/v2/environments',
        '/v2/provider-credentials',
        '/v2/provider-credentials/{name}',
        '/v2/apply',
        '/v2/export',
      ]) {
        expect(doc.body.paths[path]).toBeDefined();
      }
    });
  });
});
