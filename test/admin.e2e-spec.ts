import { createHash } from 'node:crypto';

import { createProject, uniqueSlug } from './support/factories';
import { client, expectIsoDateTime, expectResourceError, expectUnauthorized, keysOf, UUID } from './support/http';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/** Admin API: workspaces, projects and project API keys. */
describe('admin: workspaces, projects, API keys', () => {
  let t: TestApp;
  let admin: ReturnType<typeof client>;

  beforeAll(async () => {
    t = await createTestApp();
    admin = client(t, TEST_ADMIN_KEY);
  });
  afterAll(() => t.close());

  describe('workspaces', () => {
    it('creates one: exact fields, name defaulting to the slug; lists it', async () => {
      const slug = uniqueSlug('ws');
      const res = await admin.post('/v2/workspaces', { slug });
      expect(res.status).toBe(200);
      expect(keysOf(res.body)).toEqual(['createdAt', 'id', 'name', 'slug']);
      expect(res.body).toMatchObject({ slug, name: slug });
      expect(res.body.id).toMatch(UUID);
      expectIsoDateTime(res.body.createdAt);
      const named = await admin.post('/v2/workspaces', { slug: uniqueSlug('ws'), name: 'Acme Inc.' });
      expect(named.body.name).toBe('Acme Inc.');
      const list = await admin.get('/v2/workspaces');
      expect(keysOf(list.body)).toEqual(['data', 'object']);
      expect(list.body.object).toBe('list');
      expect(list.body.data).toEqual(expect.arrayContaining([res.body, named.body]));
    });

    it('a taken slug → 409; a reserved slug → 409; an invalid slug or body → 400', async () => {
      const slug = uniqueSlug('ws');
      await admin.post('/v2/workspaces', { slug }).expect(200);
      expectResourceError(await admin.post('/v2/workspaces', { slug }), 409, `Workspace "${slug}" already exists`);
      expectResourceError(await admin.post('/v2/workspaces', { slug: 'v2' }), 409, 'Workspace slug "v2" is reserved');
      for (const body of [
        {},
        { slug: 'Has Spaces' },
        { slug: 'a--b' },
        { slug: '-lead' },
        { slug: 'x'.repeat(65) },
        { slug: 7 },
        { slug: 'ok-slug', extra: 1 },
        { slug: { constructor: 'x' } },
      ]) {
        expectResourceError(await admin.post('/v2/workspaces', body), 400, 'Invalid request body');
      }
      expectResourceError(await admin.postRaw('/v2/workspaces', '{"slug":'), 400, 'Invalid request body');
    });
  });

  it('a workspace or project slug no row can have (U+0000) is 404 on every admin path, never a 500', async () => {
    const { workspace } = await createProject(t);
    expectResourceError(await admin.get('/v2/workspaces/a%00b/projects'), 404, 'Workspace not found');
    expectResourceError(await admin.post('/v2/workspaces/a%00b/projects', { slug: 'p' }), 404, 'Workspace not found');
    for (const path of [`/v2/workspaces/${workspace}/projects/a%00b/api-keys`, '/v2/workspaces/a%00b/projects/p/api-keys']) {
      expectResourceError(await admin.get(path), 404, 'Project not found');
      expectResourceError(await admin.post(path, {}), 404, 'Project not found');
      expectResourceError(await admin.delete(`${path}/01900000-0000-7000-8000-000000000000`), 404, 'Project not found');
    }
  });

  describe('projects', () => {
    it('creates and lists projects of a workspace with exact fields', async () => {
      const workspace = uniqueSlug('ws');
      const ws = (await admin.post('/v2/workspaces', { slug: workspace }).expect(200)).body;
      const res = await admin.post(`/v2/workspaces/${workspace}/projects`, { slug: 'support', name: 'Support bot' });
      expect(res.status).toBe(200);
      expect(keysOf(res.body)).toEqual(['createdAt', 'id', 'name', 'slug', 'workspace', 'workspaceId']);
      expect(res.body).toMatchObject({ slug: 'support', name: 'Support bot', workspace, workspaceId: ws.id });
      expectIsoDateTime(res.body.createdAt);
      const list = await admin.get(`/v2/workspaces/${workspace}/projects`);
      expect(list.body).toEqual({ object: 'list', data: [res.body] });
    });

    it('the same project slug in two workspaces is fine; twice in one → 409; unknown workspace → 404', async () => {
      const [w1, w2] = [uniqueSlug('ws'), uniqueSlug('ws')];
      await admin.post('/v2/workspaces', { slug: w1 }).expect(200);
      await admin.post('/v2/workspaces', { slug: w2 }).expect(200);
      await admin.post(`/v2/workspaces/${w1}/projects`, { slug: 'app' }).expect(200);
      await admin.post(`/v2/workspaces/${w2}/projects`, { slug: 'app' }).expect(200);
      expectResourceError(
        await admin.post(`/v2/workspaces/${w1}/projects`, { slug: 'app' }),
        409,
        `Project "app" already exists in workspace "${w1}"`,
      );
      expectResourceError(await admin.post('/v2/workspaces/no-such-ws/projects', { slug: 'app' }), 404, 'Workspace not found');
      expectResourceError(await admin.get('/v2/workspaces/no-such-ws/projects'), 404, 'Workspace not found');
      expectResourceError(await admin.post(`/v2/workspaces/${w1}/projects`, { slug: 'BAD' }), 400, 'Invalid request body');
    });
  });

  describe('API keys', () => {
    it('creates a key shown once; only its SHA-256 is stored; listing shows no secret', async () => {
      const p = await createProject(t);
      const base = `/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`;
      const res = await admin.post(base, { name: 'ci-deploy' });
      expect(res.status).toBe(200);
      expect(keysOf(res.body)).toEqual([
        'createdAt',
        'environments',
        'id',
        'key',
        'name',
        'prefix',
        'project',
        'projectId',
        'revokedAt',
        'scopes',
        'workspace',
      ]);
      expect(res.body).toMatchObject({
        name: 'ci-deploy',
        projectId: p.projectId,
        workspace: p.workspace,
        project: p.project,
        revokedAt: null,
        scopes: null,
        environments: null,
      });
      expect(res.body.key).toMatch(/^pk_[A-Za-z0-9_-]{32}$/);
      expect(res.body.key.startsWith(res.body.prefix)).toBe(true);
      expectIsoDateTime(res.body.createdAt);

      const [row] = await t.dataSource.query('SELECT key_hash, key_prefix FROM api_keys WHERE id = $1', [res.body.id]);
      expect(row.key_hash).toBe(createHash('sha256').update(res.body.key).digest('hex'));
      const stored = JSON.stringify(await t.dataSource.query('SELECT * FROM api_keys WHERE id = $1', [res.body.id]));
      expect(stored).not.toContain(res.body.key);

      const list = await admin.get(base);
      expect(list.body.object).toBe('list');
      expect(list.body.data.map((k: { id: string }) => k.id)).toEqual([p.keyId, res.body.id]);
      // The list adds each key's spend, budgets and last use (test/api-key-activity.e2e-spec.ts), never a secret.
      for (const key of list.body.data)
        expect(keysOf(key)).toEqual([
          'budgetUsdPerDay',
          'budgetUsdPerMonth',
          'createdAt',
          'environments',
          'id',
          'lastUsedAt',
          'name',
          'prefix',
          'projectId',
          'revokedAt',
          'scopes',
          'spendMonthUsd',
          'spendTodayUsd',
        ]);
      expect((await client(t, res.body.key).get('/v2/threads')).status).toBe(200);
      expect((await admin.post(base)).body.name).toBe('default');
    });

    it('revokes: confirmation body, revokedAt in the listing, twice → 404; unknown or malformed id → 404', async () => {
      const p = await createProject(t);
      const base = `/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`;
      const res = await admin.delete(`${base}/${p.keyId}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: p.keyId, object: 'api_key.revoked', revoked: true });
      const listed = (await admin.get(base)).body.data[0];
      expect(listed.id).toBe(p.keyId);
      expectIsoDateTime(listed.revokedAt);
      expectResourceError(await admin.delete(`${base}/${p.keyId}`), 404, 'API key not found');
      expectResourceError(await admin.delete(`${base}/01990000-0000-7000-8000-000000000000`), 404, 'API key not found');
      expectResourceError(await admin.delete(`${base}/not-a-key`), 404, 'API key not found');
      expectUnauthorized(await client(t, p.key).get('/v2/threads'));
    });

    it("a key cannot be revoked through another project's path", async () => {
      const victim = await createProject(t);
      const other = await createProject(t);
      const res = await admin.delete(`/v2/workspaces/${other.workspace}/projects/${other.project}/api-keys/${victim.keyId}`);
      expectResourceError(res, 404, 'API key not found');
      expect((await client(t, victim.key).get('/v2/threads')).status).toBe(200);
    });

    it('unknown workspace or project → 404; bad name → 400', async () => {
      const p = await createProject(t);
      expectResourceError(await admin.post(`/v2/workspaces/${p.workspace}/projects/nope/api-keys`, {}), 404, 'Project not found');
      expectResourceError(await admin.get(`/v2/workspaces/nope-ws/projects/${p.project}/api-keys`), 404, 'Project not found');
      expectResourceError(await admin.delete(`/v2/workspaces/${p.workspace}/projects/nope/api-keys/${p.keyId}`), 404, 'Project not found');
      for (const body of [{ name: '' }, { name: 5 }, { name: 'x'.repeat(201) }, { label: 'x' }]) {
        expectResourceError(
          await admin.post(`/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`, body),
          400,
          'Invalid request body',
        );
      }
    });
  });

  it('admin routes without a key or with a wrong key → 401', async () => {
    expectUnauthorized(await t.http().get('/v2/workspaces'));
    expectUnauthorized(
      await t
        .http()
        .post('/v2/workspaces')
        .set('X-API-Key', 'ak_wrong')
        .send({ slug: uniqueSlug('ws') }),
    );
    expectUnauthorized(await t.http().get('/v2/workspaces').set('Authorization', `Bearer ${TEST_ADMIN_KEY}x`));
    expect((await t.http().get('/v2/workspaces').set('Authorization', `Bearer ${TEST_ADMIN_KEY}`)).status).toBe(200);
  });
});
