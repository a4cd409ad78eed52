import { auditPages, EMAIL_RULE } from './support/audit-pages';
import { createProject, uniqueSlug } from './support/factories';
import { signedInPerson, uniqueEmail } from './support/people-fixtures';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/**
 * The instance's own trail, `GET /v2/admin/audit` (docs/security.md, "Audit trail"): the instance's
 * admin (key or person) reads every event, a workspace's admin (key or person) their workspace's
 * only; a project key is refused; filters combine and pages follow each other without repeats.
 * What is written, and in which transaction: audit-people.e2e-spec.ts.
 */
describe('the instance trail: who reads it, filters and pages', () => {
  let t: TestApp;
  const admin = { 'X-API-Key': TEST_ADMIN_KEY };
  const { instanceTrail, workspaceIdOf } = auditPages(() => t);

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  describe('who reads it', () => {
    let a: string;
    let b: string;
    let aKey: string;
    let aEvents: string[];
    let bEvents: string[];
    /** Before the two workspaces were made: the instance admin's lists start here, not at every workspace of the shared database. */
    let start: string;

    beforeAll(async () => {
      start = new Date().toISOString();
      a = uniqueSlug('iwa');
      b = uniqueSlug('iwb');
      for (const slug of [a, b]) {
        await t.http().post('/v2/workspaces').set(admin).send({ slug }).expect(200);
        await t.http().post(`/v2/workspaces/${slug}/projects`).set(admin).send({ slug: 'web' }).expect(200);
      }
      aKey = (await t.http().post(`/v2/workspaces/${a}/admin-keys`).set(admin).send({ name: 'a-admin' }).expect(200)).body.key;
      const idsOf = async (slug: string) =>
        (
          await t.dataSource.query('SELECT id FROM instance_audit_events WHERE workspace_id = $1 ORDER BY id DESC', [
            await workspaceIdOf(slug),
          ])
        ).map((r: { id: string }) => r.id);
      aEvents = await idsOf(a);
      bEvents = await idsOf(b);
      expect([aEvents.length, bEvents.length]).toEqual([3, 2]);
    });

    it("a workspace admin key reads its workspace's events only; naming another workspace is not found", async () => {
      const own = await instanceTrail({ 'X-API-Key': aKey }, {}, 2);
      expect(own.every((e) => e.workspace === a)).toBe(true);
      expect(own.map((e) => e.id)).toEqual(
        (
          await t.dataSource.query('SELECT id FROM instance_audit_events WHERE workspace_id = $1 ORDER BY id DESC', [
            await workspaceIdOf(a),
          ])
        ).map((r: { id: string }) => r.id),
      );
      expect(own.map((e) => e.id)).toEqual(expect.arrayContaining(aEvents));
      expect((await instanceTrail({ 'X-API-Key': aKey }, { workspace: a })).map((e) => e.id)).toEqual(own.map((e) => e.id));
      const other = await t.http().get('/v2/admin/audit').query({ workspace: b }).set('X-API-Key', aKey);
      expect([other.status, other.body]).toEqual([404, { error: { message: 'Workspace not found' } }]);
    });

    it("the instance's admin reads every workspace's, or one's", async () => {
      const every = await instanceTrail(admin, { resourceType: 'workspace', since: start }, 100);
      expect(every.map((e) => e.resourceId)).toEqual(expect.arrayContaining([a, b]));
      expect((await instanceTrail(admin, { workspace: b })).map((e) => e.id)).toEqual(bEvents);
      const unknown = await t
        .http()
        .get('/v2/admin/audit')
        .query({ workspace: uniqueSlug('none') })
        .set(admin);
      expect([unknown.status, unknown.body]).toEqual([404, { error: { message: 'Workspace not found' } }]);
    });

    it('a project key, a person without an admin role, and a key without audit:read are refused', async () => {
      const p = await createProject(t);
      const projectKey = await t.http().get('/v2/admin/audit').set('X-API-Key', p.key);
      expect([projectKey.status, projectKey.body]).toEqual([403, { error: 'Forbidden', message: 'This endpoint needs the admin API key' }]);
      const viewer = await signedInPerson(t, uniqueEmail('viewer'), [{ workspace: a, project: 'web', role: 'viewer' }]);
      expect((await t.http().get('/v2/admin/audit').set(viewer.headers())).status).toBe(403);
      const unscoped = (
        await t
          .http()
          .post(`/v2/workspaces/${a}/admin-keys`)
          .set(admin)
          .send({ name: 'no-audit', scopes: ['keys:manage'] })
          .expect(200)
      ).body.key;
      const refused = await t.http().get('/v2/admin/audit').set('X-API-Key', unscoped);
      expect([refused.status, refused.body.message]).toEqual([403, 'This API key lacks the scope this endpoint needs: audit:read']);
    });

    it("a person who is a workspace's admin reads that workspace's; of two, the one named; an instance admin, all", async () => {
      const ws = await signedInPerson(t, uniqueEmail('wsadmin'), [{ workspace: a, role: 'admin' }]);
      const own = await instanceTrail(ws.headers());
      expect(own.every((e) => e.workspace === a)).toBe(true);
      expect(own.map((e) => e.id)).toEqual(expect.arrayContaining(aEvents));
      expect((await t.http().get('/v2/admin/audit').query({ workspace: b }).set(ws.headers())).status).toBe(404);

      const both = await signedInPerson(t, uniqueEmail('both'), [
        { workspace: a, role: 'admin' },
        { workspace: b, role: 'admin' },
      ]);
      expect((await instanceTrail(both.headers(), { workspace: b })).map((e) => e.id)).toEqual(bEvents);
      expect((await instanceTrail(both.headers(), { workspace: a })).every((e) => e.workspace === a)).toBe(true);
      expect((await t.http().get('/v2/admin/audit').set(both.headers())).status).toBe(403);

      const root = await signedInPerson(t, uniqueEmail('root'), [], { instanceAdmin: true });
      const every = await instanceTrail(root.headers(), { resourceType: 'workspace', since: start }, 100);
      expect(every.map((e) => e.resourceId)).toEqual(expect.arrayContaining([a, b]));
    });

    it('filters by action, resource type, the person (id or e-mail) and time, and pages without repeats', async () => {
      const ops = await signedInPerson(t, uniqueEmail('Ops'), [{ workspace: a, role: 'admin' }]);
      for (const slug of ['p1', 'p2', 'p3'])
        await t.http().post(`/v2/workspaces/${a}/projects`).set(ops.headers()).send({ slug }).expect(200);
      const made = (await t.http().post(`/v2/workspaces/${a}/admin-keys`).set(ops.headers()).send({ name: 'by-ops' }).expect(200)).body;
      await t.http().delete(`/v2/workspaces/${a}/admin-keys/${made.id}`).set(ops.headers()).expect(200);

      const workspace = { workspace: a };
      const truth = (
        await t.dataSource.query('SELECT id FROM instance_audit_events WHERE workspace_id = $1 ORDER BY id DESC', [await workspaceIdOf(a)])
      ).map((r: { id: string }) => r.id);
      for (const limit of [1, 2, 4]) expect((await instanceTrail(admin, workspace, limit)).map((e) => e.id)).toEqual(truth);

      const projects = await instanceTrail(admin, { ...workspace, action: 'project.created' }, 2);
      expect(projects.map((e) => e.resourceId)).toEqual([`${a}/p3`, `${a}/p2`, `${a}/p1`, `${a}/web`]);
      const keys = await instanceTrail(admin, { ...workspace, resourceType: 'admin_key' });
      expect(keys.map((e) => e.id)).toEqual(
        (
          await t.dataSource.query(
            `SELECT id FROM instance_audit_events WHERE workspace_id = $1 AND resource_type = 'admin_key' ORDER BY id DESC`,
            [await workspaceIdOf(a)],
          )
        ).map((r: { id: string }) => r.id),
      );
      expect(keys.slice(0, 2).map((e) => [e.action, e.resourceId])).toEqual([
        ['admin_key.revoked', made.id],
        ['admin_key.created', made.id],
      ]);
      expect(keys.every((e) => e.resourceType === 'admin_key')).toBe(true);

      const byOps = await instanceTrail(admin, { actorUserId: ops.id }, 2);
      expect(byOps.every((e) => e.workspace === a)).toBe(true);
      expect(byOps.map((e) => e.action)).toEqual([
        'admin_key.revoked',
        'admin_key.created',
        'project.created',
        'project.created',
        'project.created',
      ]);
      expect(byOps[0].actor).toEqual({ kind: 'user', keyId: null, keyName: null, userId: ops.id, email: ops.email });
      for (const email of [ops.email.toLowerCase(), ops.email.toUpperCase()])
        expect((await instanceTrail(admin, { actorEmail: email }, 2)).map((e) => e.id)).toEqual(byOps.map((e) => e.id));
      expect((await instanceTrail(ops.headers(), { actorUserId: ops.id, action: 'project.created' })).length).toBe(3);

      const middle = byOps[2];
      const since = await instanceTrail(admin, { actorUserId: ops.id, since: middle.createdAt });
      expect(since.every((e) => e.createdAt >= middle.createdAt)).toBe(true);
      expect(since.map((e) => e.id)).toContain(middle.id);
      const until = await instanceTrail(admin, { actorUserId: ops.id, until: middle.createdAt });
      expect(until.every((e) => e.createdAt < middle.createdAt)).toBe(true);
      expect([...since, ...until].map((e) => e.id).sort()).toEqual(byOps.map((e) => e.id).sort());
      expect(await instanceTrail(admin, { ...workspace, since: '2999-01-01T00:00:00Z' })).toEqual([]);
      // A cursor that no event id can be: an empty page.
      const bogus = await t.http().get('/v2/admin/audit').query({ after: 'not-an-id' }).set(admin).expect(200);
      expect(bogus.body).toEqual({ object: 'list', data: [], has_more: false, first_id: null, last_id: null });
    });

    it.each([
      ['actorUserId=ops', 'actorUserId must be a UUID'],
      ['actorEmail=ops', EMAIL_RULE],
      ['action=created', 'action must look like "workspace.created"'],
      [
        'resourceType=prompt',
        `resourceType must be one of the following values: workspace, project, admin_key, member, group_role, user, sign_in, scim_token, scim_user, scim_group`,
      ],
      ['since=yesterday', 'since must be an ISO 8601 date-time'],
      ['workspace=Not%20A%20Slug', 'workspace must be a workspace slug'],
    ])('400 for ?%s', async (query, detail) => {
      const res = await t.http().get(`/v2/admin/audit?${query}`).set(admin);
      expect([res.status, res.body.error.message, res.body.error.details]).toEqual([400, 'Invalid request parameters', [detail]]);
    });
  });
});
