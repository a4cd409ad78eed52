import { RegistryService } from '../src/registry/registry.service';
import { createProject, TestProject } from './support/factories';
import { createPrompt, createVersion, deploy, versionBody } from './support/registry-factories';
import { createTestApp, TestApp } from './support/test-app';

const SECRET = 'sk-test-SECRET-3f9a1c7e5b2d4a6c8e0f1a3b5c7d9e1f';
const ROTATED = 'sk-test-ROTATED-a1b2c3d4e5f60718293a4b5c6d7e8f90';

describe('provider credentials', () => {
  let t: TestApp;
  let p: TestProject;
  const bodies: string[] = [];
  const as = (project: TestProject) => ({ 'X-API-Key': project.key });
  /** Every response body of this file is kept, to check that no secret ever appears in one. */
  const keep = <R extends { text: string }>(res: R): R => {
    bodies.push(res.text);
    return res;
  };

  beforeAll(async () => {
    t = await createTestApp({
      PARLEY_SECRET_KEY: 'test-secret-key-0123456789abcdef0123456789',
      PROVIDER_KEY_BINDINGS: 'PARLEY_PROVIDER_TEST_ANTHROPIC_KEY=api.anthropic.com',
    });
    p = await createProject(t);
  });
  afterAll(() => t.close());

  it('stores a key encrypted, never returns it, and never keeps it in plaintext', async () => {
    const created = keep(
      await t
        .http()
        .post('/v2/provider-credentials')
        .set(as(p))
        .send({ name: 'openai', type: 'openai', baseUrl: 'https://llm.example.invalid/v1', apiKey: SECRET })
        .expect(200),
    );
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'openai',
      type: 'openai',
      baseUrl: 'https://llm.example.invalid/v1',
      apiKeySource: 'stored',
      apiKeyEnv: null,
      builtIn: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const list = keep(await t.http().get('/v2/provider-credentials').set(as(p)).expect(200));
    expect(list.body.data.map((c: { name: string; builtIn: boolean }) => [c.name, c.builtIn])).toEqual([
      ['local', true],
      ['openai', false],
    ]);

    const [row] = await t.dataSource.query('SELECT * FROM provider_credentials WHERE project_id = $1 AND name = $2', [
      p.projectId,
      'openai',
    ]);
    expect(JSON.stringify(row)).not.toContain(SECRET);
    expect(row.api_key_ciphertext).toMatch(/^v1\./);
    // Nowhere else in the database either (as text, whatever the table).
    for (const table of [
      'provider_credentials',
      'prompts',
      'prompt_versions',
      'deployments',
      'environments',
      'api_keys',
      'projects',
      'workspaces',
    ]) {
      const rows: unknown[] = await t.dataSource.query(`SELECT t::text AS row FROM ${table} t`);
      expect(JSON.stringify(rows)).not.toContain(SECRET);
    }
  });

  it('hands the decrypted key to invocation only, and uses a rotated key at once', async () => {
    await createPrompt(t, p, 'uses-openai');
    keep(
      await t
        .http()
        .post('/v2/prompts/uses-openai/versions')
        .set(as(p))
        .send(versionBody('hi', { provider: 'openai', model: 'gpt-4o-mini' }))
        .expect(200),
    );
    keep(await t.http().post('/v2/prompts/uses-openai/deployments').set(as(p)).send({ environment: 'production' }).expect(200));
    const registry = t.app.get(RegistryService);
    const resolved = await registry.resolveForInvoke(p.projectId, 'uses-openai', 'production');
    expect(resolved!.provider).toEqual({
      name: 'openai',
      type: 'openai',
      baseUrl: 'https://llm.example.invalid/v1',
      apiKey: SECRET,
      credentialId: expect.any(String),
    });

    const rotated = keep(
      await t.http().put('/v2/provider-credentials/openai').set(as(p)).send({ type: 'openai', apiKey: ROTATED }).expect(200),
    );
    expect(rotated.body.id).toBe(resolved!.provider.credentialId);
    const after = await registry.resolveForInvoke(p.projectId, 'uses-openai', 'production');
    expect(after!.provider).toMatchObject({ apiKey: ROTATED });
    expect(after!.provider.baseUrl).toBeUndefined();
    for (const path of [
      '/v2/prompts/uses-openai',
      '/v2/prompts/uses-openai/versions',
      '/v2/deployments',
      '/v2/provider-credentials',
      '/v2/export',
    ]) {
      keep(await t.http().get(path).set(as(p)).expect(200));
    }
  });

  it('reads an apiKeyEnv key from the environment at call time', async () => {
    const q = await createProject(t);
    keep(
      await t
        .http()
        .post('/v2/provider-credentials')
        .set(as(q))
        .send({ name: 'claude', type: 'anthropic', apiKeyEnv: 'PARLEY_PROVIDER_TEST_ANTHROPIC_KEY' })
        .expect(200),
    );
    await createPrompt(t, q, 'env-key');
    await createVersion(t, q, 'env-key', versionBody('x', { provider: 'claude', model: 'claude-sonnet' }));
    await deploy(t, q, 'env-key', 'production');
    const registry = t.app.get(RegistryService);
    delete process.env.PARLEY_PROVIDER_TEST_ANTHROPIC_KEY;
    expect((await registry.resolveForInvoke(q.projectId, 'env-key', 'production'))!.provider).toEqual({
      name: 'claude',
      type: 'anthropic',
      credentialId: expect.any(String),
    });
    process.env.PARLEY_PROVIDER_TEST_ANTHROPIC_KEY = 'from-the-environment';
    expect((await registry.resolveForInvoke(q.projectId, 'env-key', 'production'))!.provider.apiKey).toBe('from-the-environment');
    delete process.env.PARLEY_PROVIDER_TEST_ANTHROPIC_KEY;
  });

  it('validates bodies, naming each problem', async () => {
    const res = keep(
      await t
        .http()
        .post('/v2/provider-credentials')
        .set(as(p))
        .send({ name: 'local', type: 'azure', apiKey: SECRET, apiKeyEnv: 'X', extra: 1 })
        .expect(400),
    );
    expect(res.body.error.message).toBe('Invalid request body');
    expect(res.body.error.details).toEqual(expect.arrayContaining(['extra: unknown field', expect.stringMatching(/^type/)]));
    const both = keep(
      await t
        .http()
        .post('/v2/provider-credentials')
        .set(as(p))
        .send({ name: 'x', type: 'openai', apiKey: SECRET, apiKeyEnv: 'X' })
        .expect(400),
    );
    expect(both.body.error.details).toEqual(['apiKey: give apiKey or apiKeyEnv, not both']);
    const local = keep(await t.http().post('/v2/provider-credentials').set(as(p)).send({ name: 'local', type: 'openai' }).expect(400));
    expect(local.body.error.details).toEqual(['name: "local" is the built-in provider and cannot be configured']);
    keep(await t.http().post('/v2/provider-credentials').set(as(p)).send({ name: 'openai', type: 'openai' }).expect(409));
  });

  it("refuses an apiKeyEnv naming one of Parley's own secrets: the key would go to the credential's baseUrl", async () => {
    for (const apiKeyEnv of ['PARLEY_ADMIN_KEY', 'PARLEY_SECRET_KEY', 'DATABASE_URL', 'parley_admin_key']) {
      const body = { type: 'openai', baseUrl: 'https://collector.example.invalid/v1', apiKeyEnv };
      for (const res of [
        await t
          .http()
          .post('/v2/provider-credentials')
          .set(as(p))
          .send({ name: 'exfil', ...body }),
        await t.http().put('/v2/provider-credentials/exfil').set(as(p)).send(body),
      ]) {
        expect([apiKeyEnv, res.status, keep(res).body.error.details]).toEqual([
          apiKeyEnv,
          400,
          [expect.stringMatching(/^apiKeyEnv must not name one of Parley's own secrets/)],
        ]);
      }
    }
    const applied = await t
      .http()
      .post('/v2/apply')
      .set(as(p))
      .send({
        workspace: p.workspace,
        project: p.project,
        providers: [{ name: 'exfil', type: 'openai', baseUrl: 'https://collector.example.invalid/v1', apiKeyEnv: 'PARLEY_ADMIN_KEY' }],
      });
    expect([applied.status, applied.body.error.details]).toEqual([
      400,
      [expect.stringMatching(/^providers\[0\]\.apiKeyEnv: Expected an environment variable other than Parley's own secrets/)],
    ]);
    expect(
      (await t.http().get('/v2/provider-credentials').set(as(p)).expect(200)).body.data.map((c: { name: string }) => c.name),
    ).not.toContain('exfil');
  });

  it('refuses to delete a credential a current deployment uses, then deletes it', async () => {
    const q = await createProject(t);
    keep(await t.http().post('/v2/provider-credentials').set(as(q)).send({ name: 'gw', type: 'openai', apiKey: SECRET }).expect(200));
    await createPrompt(t, q, 'on-gw');
    await createVersion(t, q, 'on-gw', versionBody('x', { provider: 'gw', model: 'm' }));
    await createVersion(t, q, 'on-gw', versionBody('y'));
    await deploy(t, q, 'on-gw', 'production', 1);
    const refused = keep(await t.http().delete('/v2/provider-credentials/gw').set(as(q)).expect(409));
    expect(refused.body.error.message).toMatch(/on-gw \(production\)/);
    await deploy(t, q, 'on-gw', 'production', 2);
    keep(
      await t
        .http()
        .delete('/v2/provider-credentials/gw')
        .set(as(q))
        .expect(200, { name: 'gw', object: 'provider_credential.deleted', deleted: true }),
    );
    keep(await t.http().delete('/v2/provider-credentials/gw').set(as(q)).expect(404));
    keep(await t.http().delete('/v2/provider-credentials/local').set(as(q)).expect(409));
    // A pinned call to the old version now has no provider: a clear 502, not a crash.
    await expect(t.app.get(RegistryService).resolveForInvoke(q.projectId, 'on-gw', 'production', 1)).rejects.toMatchObject({ status: 502 });
  });

  it('keeps credentials per project', async () => {
    const other = await createProject(t);
    const list = keep(await t.http().get('/v2/provider-credentials').set(as(other)).expect(200));
    expect(list.body.data.map((c: { name: string }) => c.name)).toEqual(['local']);
    keep(await t.http().delete('/v2/provider-credentials/openai').set(as(other)).expect(404));
    keep(await t.http().post('/v2/prompts').set(as(other)).send({ slug: 'x' }).expect(200));
    const bad = keep(
      await t
        .http()
        .post('/v2/prompts/x/versions')
        .set(as(other))
        .send(versionBody('x', { provider: 'openai' }))
        .expect(400),
    );
    expect(bad.body.error.details[0]).toMatch(/no provider "openai"/);
  });

  // Runs last: every response body above, successes and errors alike.
  it('never put a key in any response body', () => {
    expect(bodies.length).toBeGreaterThan(20);
    for (const body of bodies) {
      expect(body).not.toContain(SECRET);
      expect(body).not.toContain(ROTATED);
    }
  });
});
