import { randomBytes } from 'node:crypto';

import { AuditRetentionService } from '../src/audit/audit-retention.service';
import { ApiKeysService } from '../src/auth/api-keys.service';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { type AuditActor as Actor, auditPages, EMAIL_RULE } from './support/audit-pages';
import { createProject, TestProject, uniqueSlug } from './support/factories';
import { signedInPerson, uniqueEmail } from './support/people-fixtures';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/**
 * An audit trail that names people (docs/security.md, "Audit trail"): a change made from a
 * person's console session records them (kind `user`, id, e-mail), a key's records the key; the
 * instance's own trail records workspaces, projects and workspace admin keys in the change's
 * transaction. Who reads the instance's trail, its filters and pages: audit-instance.e2e-spec.ts.
 */
describe('audit trail naming people, and the instance trail', () => {
  let t: TestApp;
  const admin = { 'X-API-Key': TEST_ADMIN_KEY };
  let n = 0;
  const rid = (label: string) => `audit-people-${label}-${++n}-${process.pid}`;
  const { allPages, instanceTrail, workspaceIdOf } = auditPages(() => t);

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  describe('the project trail', () => {
    let p: TestProject;

    beforeAll(async () => {
      p = await createProject(t);
    });

    it("records a person's change as theirs (kind user, id, e-mail) and a key's as the key's, in the table and the API", async () => {
      const ada = await signedInPerson(t, uniqueEmail('Ada'), [{ workspace: p.workspace, project: p.project, role: 'editor' }]);
      const byPerson = rid('person');
      await t
        .http()
        .post('/v2/prompts')
        .set({ ...ada.headers(`${p.workspace}/${p.project}`), 'X-Request-Id': byPerson })
        .send({ slug: 'by-ada' })
        .expect(200);
      const byKey = rid('key');
      await t.http().post('/v2/environments').set({ 'X-API-Key': p.key, 'X-Request-Id': byKey }).send({ slug: 'qa' }).expect(200);

      const rows = await t.dataSource.query(
        `SELECT request_id, actor_kind, actor_key_id, actor_key_name, actor_user_id, actor_user_email
           FROM audit_events WHERE project_id = $1 AND request_id = ANY ($2) ORDER BY id`,
        [p.projectId, [byPerson, byKey]],
      );
      expect(rows).toEqual([
        {
          request_id: byPerson,
          actor_kind: 'user',
          actor_key_id: null,
          actor_key_name: null,
          actor_user_id: ada.id,
          actor_user_email: ada.email,
        },
        {
          request_id: byKey,
          actor_kind: 'project',
          actor_key_id: p.keyId,
          actor_key_name: 'test',
          actor_user_id: null,
          actor_user_email: null,
        },
      ]);

      const mine = await allPages<{ id: string; actor: Actor; action: string; requestId: string }>(
        '/v2/audit',
        { 'X-API-Key': p.key },
        {
          actorUserId: ada.id,
        },
      );
      expect(mine.map((e) => [e.action, e.requestId, e.actor])).toEqual([
        ['prompt.created', byPerson, { kind: 'user', keyId: null, keyName: null, userId: ada.id, email: ada.email }],
      ]);
      // The e-mail matches whatever its case.
      for (const email of [ada.email, ada.email.toLowerCase(), ada.email.toUpperCase()])
        expect((await allPages<{ id: string }>('/v2/audit', { 'X-API-Key': p.key }, { actorEmail: email })).map((e) => e.id)).toEqual(
          mine.map((e) => e.id),
        );
      const keyed = await allPages<{ id: string; actor: Actor; requestId: string }>(
        '/v2/audit',
        { 'X-API-Key': p.key },
        {
          actorKeyId: p.keyId,
        },
      );
      expect(keyed.find((e) => e.requestId === byKey)?.actor).toEqual({
        kind: 'project',
        keyId: p.keyId,
        keyName: 'test',
        userId: null,
        email: null,
      });
      expect(keyed.some((e) => e.requestId === byPerson)).toBe(false);
      // Someone else's address finds nothing, nor does another project's key see Ada's change.
      expect(await allPages('/v2/audit', { 'X-API-Key': p.key }, { actorEmail: uniqueEmail('nobody') })).toEqual([]);
      const other = await createProject(t);
      expect(await allPages('/v2/audit', { 'X-API-Key': other.key }, { actorUserId: ada.id })).toEqual([]);
    });

    it("pages a person's changes newest first, without repeats, across pages", async () => {
      const grace = await signedInPerson(t, uniqueEmail('Grace'), [{ workspace: p.workspace, role: 'admin' }]);
      for (let i = 0; i < 7; i++)
        await t
          .http()
          .post('/v2/prompts')
          .set(grace.headers(`${p.workspace}/${p.project}`))
          .send({ slug: `grace-${i}` })
          .expect(200);
      const truth = (
        await t.dataSource.query('SELECT id FROM audit_events WHERE project_id = $1 AND actor_user_id = $2 ORDER BY id DESC', [
          p.projectId,
          grace.id,
        ])
      ).map((r: { id: string }) => r.id);
      expect(truth).toHaveLength(7);
      for (const limit of [1, 2, 3, 7]) {
        const paged = await allPages<{ id: string }>('/v2/audit', { 'X-API-Key': p.key }, { actorUserId: grace.id }, limit);
        expect(paged.map((e) => e.id)).toEqual(truth);
        const byEmail = await allPages<{ id: string }>(
          '/v2/audit',
          { 'X-API-Key': p.key },
          { actorEmail: grace.email.toLowerCase() },
          limit,
        );
        expect(byEmail.map((e) => e.id)).toEqual(truth);
      }
      // With another filter: AND.
      expect(await allPages('/v2/audit', { 'X-API-Key': p.key }, { actorUserId: grace.id, action: 'environment.created' })).toEqual([]);
    });

    it.each([
      ['an actorUserId that is no UUID', 'actorUserId=ada', 'actorUserId must be a UUID'],
      ['an actorEmail that is no address', 'actorEmail=not-an-address', EMAIL_RULE],
      ['an actorEmail of 332 characters', `actorEmail=${'a'.repeat(320)}@example.com`, EMAIL_RULE],
    ])('400 for %s', async (_name, query, detail) => {
      const res = await t.http().get(`/v2/audit?${query}`).set('X-API-Key', p.key);
      expect([res.status, res.body.error.message, res.body.error.details]).toEqual([400, 'Invalid request parameters', [detail]]);
    });
  });

  describe('the instance trail', () => {
    it('records a workspace, a project and a workspace admin key made and revoked, each with who, where from and the request id', async () => {
      const slug = uniqueSlug('iws');
      const from = { ...admin, 'X-Forwarded-For': '203.0.113.7' };
      const made = rid('workspace');
      await t
        .http()
        .post('/v2/workspaces')
        .set({ ...from, 'X-Request-Id': made })
        .send({ slug, name: 'Instance trail' })
        .expect(200);
      await t
        .http()
        .post(`/v2/workspaces/${slug}/projects`)
        .set({ ...from, 'X-Request-Id': rid('project') })
        .send({ slug: 'web' })
        .expect(200);
      const key = (await t.http().post(`/v2/workspaces/${slug}/admin-keys`).set(from).send({ name: 'ops', preset: 'viewer' }).expect(200))
        .body;
      await t.http().delete(`/v2/workspaces/${slug}/admin-keys/${key.id}`).set(from).expect(200);

      const workspaceId = await workspaceIdOf(slug);
      const rows = await t.dataSource.query(
        `SELECT action, resource_type, resource_id, actor_kind, actor_key_name, actor_user_id, client_address
           FROM instance_audit_events WHERE workspace_id = $1 ORDER BY id`,
        [workspaceId],
      );
      const who = { actor_kind: 'admin', actor_key_name: 'PARLEY_ADMIN_KEY', actor_user_id: null, client_address: '203.0.113.7' };
      expect(rows).toEqual([
        { action: 'workspace.created', resource_type: 'workspace', resource_id: slug, ...who },
        { action: 'project.created', resource_type: 'project', resource_id: `${slug}/web`, ...who },
        { action: 'admin_key.created', resource_type: 'admin_key', resource_id: key.id, ...who },
        { action: 'admin_key.revoked', resource_type: 'admin_key', resource_id: key.id, ...who },
      ]);

      const events = await instanceTrail(admin, { workspace: slug });
      expect(events.map((e) => e.action)).toEqual(['admin_key.revoked', 'admin_key.created', 'project.created', 'workspace.created']);
      expect(events[3]).toEqual({
        id: expect.any(String),
        object: 'instance_audit_event',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        workspace: slug,
        actor: { kind: 'admin', keyId: null, keyName: 'PARLEY_ADMIN_KEY', userId: null, email: null },
        action: 'workspace.created',
        resourceType: 'workspace',
        resourceId: slug,
        before: null,
        after: { id: workspaceId, slug, name: 'Instance trail' },
        requestId: made,
        clientAddress: '203.0.113.7',
      });
      expect(events[1].after).toMatchObject({ id: key.id, name: 'ops', prefix: key.prefix, scopes: key.scopes });
      expect(events[0].before).toMatchObject({ id: key.id, name: 'ops' });
      // Never the key nor its hash.
      const [hash] = await t.dataSource.query('SELECT key_hash FROM api_keys WHERE id = $1', [key.id]);
      const stored = JSON.stringify(await t.dataSource.query('SELECT * FROM instance_audit_events WHERE workspace_id = $1', [workspaceId]));
      for (const secret of [key.key, hash.key_hash, TEST_ADMIN_KEY]) expect((stored + JSON.stringify(events)).includes(secret)).toBe(false);
    });

    it('a refused request leaves neither the change nor its event', async () => {
      const slug = uniqueSlug('iws');
      await t.http().post('/v2/workspaces').set(admin).send({ slug }).expect(200);
      await t.http().post(`/v2/workspaces/${slug}/projects`).set(admin).send({ slug: 'web' }).expect(200);
      const wsAdmin = (await t.http().post(`/v2/workspaces/${slug}/admin-keys`).set(admin).send({ name: 'ws' }).expect(200)).body.key;
      const count = async () =>
        (
          await t.dataSource.query('SELECT count(*)::int AS n FROM instance_audit_events WHERE workspace_id = $1', [
            await workspaceIdOf(slug),
          ])
        )[0].n;
      const before = await count();
      expect(before).toBe(3);
      // Taken slugs, a workspace admin key making a workspace, granting more than it holds.
      expect((await t.http().post('/v2/workspaces').set(admin).send({ slug })).status).toBe(409);
      expect((await t.http().post(`/v2/workspaces/${slug}/projects`).set(admin).send({ slug: 'web' })).status).toBe(409);
      const refusedSlug = uniqueSlug('iws');
      expect((await t.http().post('/v2/workspaces').set('X-API-Key', wsAdmin).send({ slug: refusedSlug })).status).toBe(403);
      const narrow = (
        await t
          .http()
          .post(`/v2/workspaces/${slug}/admin-keys`)
          .set(admin)
          .send({ name: 'narrow', scopes: ['keys:manage'] })
          .expect(200)
      ).body.key;
      expect((await t.http().post(`/v2/workspaces/${slug}/admin-keys`).set('X-API-Key', narrow).send({ name: 'wider' })).status).toBe(403);
      expect(await count()).toBe(before + 1); // the narrow key only
      expect(await t.dataSource.query('SELECT id FROM workspaces WHERE slug = $1', [refusedSlug])).toEqual([]);
      expect(await t.dataSource.query('SELECT id FROM instance_audit_events WHERE resource_id = $1', [refusedSlug])).toEqual([]);
    });

    it('is written in the transaction of the change: a failing event undoes the change, a failing change undoes the event', async () => {
      const suffix = randomBytes(4).toString('hex');
      const doomedWorkspace = `doomed-ws-${suffix}`;
      const doomedProject = `doomed-p-${suffix}`;
      const host = uniqueSlug('iws');
      await t.http().post('/v2/workspaces').set(admin).send({ slug: host }).expect(200);
      // The event of one workspace cannot be stored; one project's environments (written after its event) cannot either.
      await t.dataSource.query(`
        CREATE FUNCTION refuse_${suffix}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'refused by the test'; END $$`);
      await t.dataSource.query(`
        CREATE TRIGGER refuse_event_${suffix} BEFORE INSERT ON instance_audit_events
        FOR EACH ROW WHEN (NEW.resource_id = '${doomedWorkspace}') EXECUTE FUNCTION refuse_${suffix}()`);
      // PostgreSQL allows no subquery in a trigger's WHEN: the function looks the project up.
      await t.dataSource.query(`
        CREATE FUNCTION refuse_project_${suffix}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF EXISTS (SELECT 1 FROM projects WHERE id = NEW.project_id AND slug = '${doomedProject}') THEN RAISE EXCEPTION 'refused by the test'; END IF;
          RETURN NEW;
        END $$`);
      await t.dataSource.query(`
        CREATE TRIGGER refuse_environment_${suffix} BEFORE INSERT ON environments
        FOR EACH ROW EXECUTE FUNCTION refuse_project_${suffix}()`);
      try {
        expect((await t.http().post('/v2/workspaces').set(admin).send({ slug: doomedWorkspace })).status).toBe(500);
        expect((await t.http().post(`/v2/workspaces/${host}/projects`).set(admin).send({ slug: doomedProject })).status).toBe(500);
      } finally {
        await t.dataSource.query(`DROP TRIGGER refuse_environment_${suffix} ON environments`);
        await t.dataSource.query(`DROP TRIGGER refuse_event_${suffix} ON instance_audit_events`);
        await t.dataSource.query(`DROP FUNCTION refuse_project_${suffix}()`);
        await t.dataSource.query(`DROP FUNCTION refuse_${suffix}()`);
      }
      expect(await t.dataSource.query('SELECT id FROM workspaces WHERE slug = $1', [doomedWorkspace])).toEqual([]);
      expect(await t.dataSource.query('SELECT id FROM projects WHERE slug = $1', [doomedProject])).toEqual([]);
      expect(
        await t.dataSource.query('SELECT id FROM instance_audit_events WHERE resource_id IN ($1, $2)', [
          doomedWorkspace,
          `${host}/${doomedProject}`,
        ]),
      ).toEqual([]);
      // Both go through once nothing refuses them.
      await t.http().post('/v2/workspaces').set(admin).send({ slug: doomedWorkspace }).expect(200);
      await t.http().post(`/v2/workspaces/${host}/projects`).set(admin).send({ slug: doomedProject }).expect(200);
      const written = await t.dataSource.query('SELECT action FROM instance_audit_events WHERE resource_id IN ($1, $2) ORDER BY id', [
        doomedWorkspace,
        `${host}/${doomedProject}`,
      ]);
      expect(written).toEqual([{ action: 'workspace.created' }, { action: 'project.created' }]);
    });

    it("the CLI on the database is the operator; the instance's own admin keys belong to no workspace", async () => {
      const slug = uniqueSlug('iws');
      await t.app.get(WorkspacesService).createWorkspace({ slug });
      await t.app.get(WorkspacesService).createProject(slug, { slug: 'cli' });
      const issued = await t.app.get(ApiKeysService).issue('admin', null, `cli-admin-${slug}`);
      const rows = await t.dataSource.query(
        `SELECT workspace_id, action, actor_kind, actor_key_id, actor_key_name, actor_user_id, request_id, client_address
           FROM instance_audit_events WHERE resource_id IN ($1, $2, $3) ORDER BY id`,
        [slug, `${slug}/cli`, issued.entity.id],
      );
      const operator = {
        actor_kind: 'operator',
        actor_key_id: null,
        actor_key_name: 'cli',
        actor_user_id: null,
        request_id: null,
        client_address: null,
      };
      const workspaceId = await workspaceIdOf(slug);
      expect(rows).toEqual([
        { workspace_id: workspaceId, action: 'workspace.created', ...operator },
        { workspace_id: workspaceId, action: 'project.created', ...operator },
        { workspace_id: null, action: 'admin_key.created', ...operator },
      ]);
    });

    it('keeps instance events for AUDIT_RETENTION_DAYS, as the projects', async () => {
      const slug = uniqueSlug('iws');
      await t.http().post('/v2/workspaces').set(admin).send({ slug }).expect(200);
      const workspaceId = await workspaceIdOf(slug);
      const recent = await t.dataSource.query('SELECT id FROM instance_audit_events WHERE workspace_id = $1', [workspaceId]);
      expect(recent).toHaveLength(1);
      await t.dataSource.query(
        `INSERT INTO instance_audit_events (id, workspace_id, created_at, actor_kind, action, resource_type, resource_id)
         VALUES ('01000000-0000-7000-8000-0000000000a1', $1, now() - interval '400 days', 'operator', 'workspace.created', 'workspace', 'ancient')`,
        [workspaceId],
      );
      expect(await t.app.get(AuditRetentionService).expire()).toBeGreaterThanOrEqual(1);
      expect(await t.dataSource.query('SELECT id FROM instance_audit_events WHERE workspace_id = $1', [workspaceId])).toEqual(recent);
    });
  });
});
