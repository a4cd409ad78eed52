import { uniqueSlug } from './support/factories';
import { expectResourceError } from './support/http';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/** Workspace admin keys: one workspace's projects and keys, and not-found for every other workspace. */
describe('workspace admin keys', () => {
  let t: TestApp;
  let own: string;
  let other: string;
  let wk: { 'X-API-Key': string };
  let wkId: string;
  const admin = { 'X-API-Key': TEST_ADMIN_KEY };

  beforeAll(async () => {
    t = await createTestApp({ PROVIDER_KEY_BINDINGS: 'PARLEY_PROVIDER_WK_BOUND=api.openai.com' });
    own = uniqueSlug('ws');
    other = uniqueSlug('ws');
    for (const slug of [own, other]) await t.http().post('/v2/workspaces').set(admin).send({ slug }).expect(200);
    await t.http().post(`/v2/workspaces/${other}/projects`).set(admin).send({ slug: 'theirs' }).expect(200);
    const created = await t.http().post(`/v2/workspaces/${own}/admin-keys`).set(admin).send({ name: 'owner' }).expect(200);
    expect(created.body).toMatchObject({ name: 'owner', workspace: own, scopes: null, key: expect.stringMatching(/^ak_/) });
    wk = { 'X-API-Key': created.body.key };
    wkId = created.body.id;
  });
  afterAll(() => t.close());

  it('manages its own workspace: projects, project keys, its own admin keys', async () => {
    const listed = await t.http().get('/v2/workspaces').set(wk).expect(200);
    expect(listed.body.data.map((w: { slug: string }) => w.slug)).toEqual([own]);
    await t.http().post(`/v2/workspaces/${own}/projects`).set(wk).send({ slug: 'mine' }).expect(200);
    const key = await t
      .http()
      .post(`/v2/workspaces/${own}/projects/mine/api-keys`)
      .set(wk)
      .send({ name: 'app', preset: 'app' })
      .expect(200);
    await t.http().get('/v2/threads').set('X-API-Key', key.body.key).expect(200);
    expect((await t.http().get(`/v2/workspaces/${own}/projects/mine/api-keys`).set(wk).expect(200)).body.data).toHaveLength(1);
    await t.http().delete(`/v2/workspaces/${own}/projects/mine/api-keys/${key.body.id}`).set(wk).expect(200);
    expect((await t.http().get(`/v2/workspaces/${own}/admin-keys`).set(wk).expect(200)).body.data.map((k: { id: string }) => k.id)).toEqual(
      [wkId],
    );
  });

  it('gets not-found for another workspace on every route, and changes nothing there', async () => {
    const theirs = `/v2/workspaces/${other}`;
    const attempts = [
      t.http().get(`${theirs}/projects`).set(wk),
      t.http().post(`${theirs}/projects`).set(wk).send({ slug: 'intruder' }),
      t.http().get(`${theirs}/projects/theirs/api-keys`).set(wk),
      t.http().post(`${theirs}/projects/theirs/api-keys`).set(wk).send({ name: 'x' }),
      t.http().put(`${theirs}/projects/theirs/api-keys/0190a5c4-0000-7000-8000-000000000000/access`).set(wk).send({}),
      t.http().delete(`${theirs}/projects/theirs/api-keys/0190a5c4-0000-7000-8000-000000000000`).set(wk),
      t.http().get(`${theirs}/admin-keys`).set(wk),
      t.http().post(`${theirs}/admin-keys`).set(wk).send({}),
      t.http().delete(`${theirs}/admin-keys/${wkId}`).set(wk),
    ];
    for (const res of await Promise.all(attempts)) expectResourceError(res, 404, 'Workspace not found');
    const apply = await t.http().post('/v2/apply').set(wk).send({ workspace: other, project: 'theirs', prompts: [] });
    expectResourceError(apply, 404, 'Workspace not found');
    expectResourceError(
      await t
        .http()
        .post('/v2/apply')
        .set(wk)
        .send({ workspace: uniqueSlug('new'), project: 'p' }),
      404,
      'Workspace not found',
    );
    expectResourceError(
      await t.http().get('/v2/export').query({ workspace: other, project: 'theirs' }).set(wk),
      404,
      'Workspace not found',
    );
    expectResourceError(
      await t.http().post('/v2/import').set(wk).send({ workspace: other, project: 'theirs', records: [] }),
      404,
      'Workspace not found',
    );
    const rows = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM projects p JOIN workspaces w ON w.id = p.workspace_id WHERE w.slug = $1`,
      [other],
    );
    expect(rows[0].n).toBe(1);
    expect(
      await t.dataSource.query(
        `SELECT count(*)::int AS n FROM api_keys k JOIN projects p ON p.id = k.project_id JOIN workspaces w ON w.id = p.workspace_id WHERE w.slug = $1`,
        [other],
      ),
    ).toEqual([{ n: 0 }]);
  });

  it("is not the instance's admin: no new workspaces, no limits, no unbound operator variables", async () => {
    expect(
      (
        await t
          .http()
          .post('/v2/workspaces')
          .set(wk)
          .send({ slug: uniqueSlug('ws') })
      ).status,
    ).toBe(403);
    await t.http().post(`/v2/workspaces/${own}/projects`).set(wk).send({ slug: 'limited' }).expect(200);
    expect((await t.http().get(`/v2/workspaces/${own}/projects/limited/limits`).set(wk)).status).toBe(403);
    const base = { workspace: own, project: 'limited' };
    expect(
      (
        await t
          .http()
          .post('/v2/apply')
          .set(wk)
          .send({ ...base, limits: { project: { requestsPerMinute: 1000000 } } })
      ).status,
    ).toBe(403);
    const unbound = await t
      .http()
      .post('/v2/apply')
      .set(wk)
      .send({
        ...base,
        providers: [{ name: 'op', type: 'openai', baseUrl: 'https://evil.example/v1', apiKeyEnv: 'PARLEY_PROVIDER_WK_UNBOUND' }],
      });
    expect([unbound.status, unbound.body.error.details]).toEqual([400, [expect.stringContaining('only the admin key may name it')]]);
    await t
      .http()
      .post('/v2/apply')
      .set(wk)
      .send({ ...base, providers: [{ name: 'bound', type: 'openai', apiKeyEnv: 'PARLEY_PROVIDER_WK_BOUND' }] })
      .expect(200);
  });

  it('grants at most its own scopes, and stops working once revoked', async () => {
    const narrow = await t
      .http()
      .post(`/v2/workspaces/${own}/admin-keys`)
      .set(wk)
      .send({ name: 'keys-only', scopes: ['keys:manage'] })
      .expect(200);
    const as = { 'X-API-Key': narrow.body.key };
    await t.http().post(`/v2/workspaces/${own}/projects`).set(admin).send({ slug: 'granted' }).expect(200);
    const full = await t.http().post(`/v2/workspaces/${own}/projects/granted/api-keys`).set(as).send({ name: 'full' });
    expect([full.status, full.body.message]).toEqual([403, expect.stringContaining('cannot grant scopes it does not hold: invoke')]);
    expect((await t.http().post(`/v2/workspaces/${own}/projects/granted/api-keys`).set(as).send({ preset: 'app' })).status).toBe(403);
    await t
      .http()
      .post(`/v2/workspaces/${own}/projects/granted/api-keys`)
      .set(as)
      .send({ scopes: ['keys:manage'] })
      .expect(200);
    expect((await t.http().post('/v2/apply').set(as).send({ workspace: own, project: 'granted' })).status).toBe(403);

    await t.http().delete(`/v2/workspaces/${own}/admin-keys/${narrow.body.id}`).set(admin).expect(200);
    expect((await t.http().get('/v2/workspaces').set(as)).status).toBe(401);
  });
});
