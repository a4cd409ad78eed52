import { ApiKeysService } from '../src/auth/api-keys.service';
import { createProject, TestProject } from './support/factories';
import { deploy, INVOKE_APP_ENV, invokePath } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/**
 * The admin key in a project (docs/console.md, "The admin key in a project"): with
 * `X-Parley-Project: <workspace>/<project>` an admin key reaches that project's routes as a project
 * key of it would, with the admin key's own scopes, and stays the admin key in the audit trail.
 */
describe('admin key acting in a project (X-Parley-Project)', () => {
  let t: TestApp;
  let p: TestProject;
  let other: TestProject;
  const admin = (target?: string) => ({ 'X-API-Key': TEST_ADMIN_KEY, ...(target ? { 'X-Parley-Project': target } : {}) });
  const target = (q: TestProject) => `${q.workspace}/${q.project}`;

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    p = await createProject(t);
    other = await createProject(t);
    await deploy(t, p, { slug: 'mine' });
    await deploy(t, other, { slug: 'theirs' });
  });
  afterAll(() => t.close());

  it("without the header a project route is the admin key's 403; with it, the named project's own objects", async () => {
    expect((await t.http().get('/v2/prompts').set(admin())).status).toBe(403);
    const mine = await t
      .http()
      .get('/v2/prompts')
      .set(admin(target(p)))
      .expect(200);
    expect(mine.body.data.map((x: { slug: string }) => x.slug)).toEqual(['mine']);
    const theirs = await t
      .http()
      .get('/v2/prompts')
      .set(admin(target(other)))
      .expect(200);
    expect(theirs.body.data.map((x: { slug: string }) => x.slug)).toEqual(['theirs']);
    expect(
      (
        await t
          .http()
          .get('/v2/prompts/theirs')
          .set(admin(target(p)))
      ).status,
    ).toBe(404);
  });

  it('changes land in the named project, audited as the admin key', async () => {
    const created = await t
      .http()
      .post('/v2/prompts')
      .set(admin(target(p)))
      .send({ slug: 'by-admin' })
      .expect(200);
    expect(await t.dataSource.query('SELECT project_id FROM prompts WHERE id = $1', [created.body.id])).toEqual([
      { project_id: p.projectId },
    ]);
    const events = await t.dataSource.query(
      "SELECT actor_kind, actor_key_id, actor_key_name FROM audit_events WHERE project_id = $1 AND action = 'prompt.created' AND after->>'slug' = 'by-admin'",
      [p.projectId],
    );
    expect(events).toEqual([{ actor_kind: 'admin', actor_key_id: null, actor_key_name: 'PARLEY_ADMIN_KEY' }]);
    // An invoke and its log, in the named project.
    const invoked = await t
      .http()
      .post(invokePath(p, 'mine'))
      .set(admin(target(p)))
      .send({ messages: [{ role: 'user', content: 'hi' }] })
      .expect(200);
    const log = await t
      .http()
      .get(`/v2/logs/${invoked.headers['x-parley-log-id']}`)
      .set(admin(target(p)))
      .expect(200);
    expect(log.body).toMatchObject({ promptSlug: 'mine', projectAPIKeyId: null });
    expect(
      (
        await t
          .http()
          .get(`/v2/logs/${invoked.headers['x-parley-log-id']}`)
          .set(admin(target(other)))
      ).status,
    ).toBe(404);
  });

  it('a project that does not exist, or is named badly, is 404; a workspace admin key reaches its own workspace only', async () => {
    for (const bad of [`${p.workspace}/nope`, 'nope/nope', p.workspace, `${target(p)}/x`, 'A B/c', '']) {
      const res = await t.http().get('/v2/prompts').set(admin(bad));
      expect([bad, res.status]).toEqual([bad, bad === '' ? 403 : 404]);
    }
    const wk = (await t.http().post(`/v2/workspaces/${p.workspace}/admin-keys`).set(admin()).send({ name: 'owner' }).expect(200)).body.key;
    await t
      .http()
      .get('/v2/prompts')
      .set({ 'X-API-Key': wk, 'X-Parley-Project': target(p) })
      .expect(200);
    const elsewhere = await t
      .http()
      .get('/v2/prompts')
      .set({ 'X-API-Key': wk, 'X-Parley-Project': target(other) });
    expect(elsewhere.status).toBe(404);
  });

  it("the admin key's scopes hold; a project key's header is ignored (it stays in its own project)", async () => {
    const reader = (await t.app.get(ApiKeysService).issue('admin', null, 'reader', { scopes: ['registry:read'] })).secret;
    await t
      .http()
      .get('/v2/prompts')
      .set({ 'X-API-Key': reader, 'X-Parley-Project': target(p) })
      .expect(200);
    expect(
      (
        await t
          .http()
          .get('/v2/logs')
          .set({ 'X-API-Key': reader, 'X-Parley-Project': target(p) })
      ).status,
    ).toBe(403);
    const own = await t
      .http()
      .get('/v2/prompts')
      .set({ 'X-API-Key': p.key, 'X-Parley-Project': target(other) })
      .expect(200);
    expect(own.body.data.map((x: { slug: string }) => x.slug)).toEqual(expect.arrayContaining(['mine']));
    expect(own.body.data.map((x: { slug: string }) => x.slug)).not.toContain('theirs');
  });
});
