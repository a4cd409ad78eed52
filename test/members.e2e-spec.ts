import { randomUUID } from 'node:crypto';

import { ConsoleSessionsService } from '../src/console/console-sessions.service';
import { createProject, TestProject, uniqueSlug } from './support/factories';
import { expectResourceError } from './support/http';
import { sleep } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/**
 * Issue 44 item 2 (docs/security.md, "Roles"): members of a workspace or project get roles through
 * the admin key, a workspace admin key or a person who is the workspace's admin; a person's role
 * decides what their console session may do from their next request; removing them ends their
 * sessions on every instance at once. On PostgreSQL two app instances share the database; on PGlite
 * (one process's database) the one instance stands for both. A person's session is made through
 * the app's own ConsoleSessionsService (the OIDC sign-in is the sign-in tests').
 */
const onPostgres = Boolean(process.env.DATABASE_URL);

describe(`members and roles (${onPostgres ? 'two instances on PostgreSQL' : 'PGlite'})`, () => {
  let a: TestApp;
  let b: TestApp;
  let p: TestProject;
  const admin = { 'X-API-Key': TEST_ADMIN_KEY };
  const members = () => `/v2/workspaces/${p.workspace}/members`;
  const projectMembers = () => `/v2/workspaces/${p.workspace}/projects/${p.project}/members`;

  beforeAll(async () => {
    a = await createTestApp();
    b = onPostgres ? await createTestApp() : a;
    p = await createProject(a);
  });
  afterAll(async () => {
    if (b !== a) await b.close();
    await a.close();
  });

  /** A console session for the user, as a sign-in makes one; the headers a console request of theirs carries. */
  async function signedIn(userId: string, project: TestProject | null = p): Promise<Record<string, string>> {
    const { token } = await a.app.get(ConsoleSessionsService).startForUser(userId);
    return {
      Cookie: `parley_session=${token}`,
      'X-Parley-CSRF': '1',
      ...(project ? { 'X-Parley-Project': `${project.workspace}/${project.project}` } : {}),
    };
  }
  const membershipRows = (userId: string) =>
    a.dataSource.query(
      `SELECT p.slug AS project, m.role, m.managed_by FROM memberships m LEFT JOIN projects p ON p.id = m.project_id
        WHERE m.user_id = $1 ORDER BY p.slug NULLS FIRST`,
      [userId],
    );
  const auditOf = (workspaceId: string, resourceId: string) =>
    a.dataSource.query(
      `SELECT action, actor_kind, actor_key_name, actor_user_email, before, after FROM instance_audit_events
        WHERE workspace_id = $1 AND resource_id = $2 ORDER BY id`,
      [workspaceId, resourceId],
    );
  const workspaceIdOf = async (slug: string) => (await a.dataSource.query('SELECT id FROM workspaces WHERE slug = $1', [slug]))[0].id;

  it('gives a role by e-mail before the first sign-in: the user row, the membership, the list and the audit trail', async () => {
    const email = `Ana.${randomUUID().slice(0, 8)}@Example.com`;
    const put = await a
      .http()
      .put(`${members()}/${encodeURIComponent(email)}`)
      .set(admin)
      .send({ role: 'viewer' })
      .expect(200);
    expect(put.body).toEqual({
      object: 'member',
      id: expect.any(String),
      user: { id: put.body.id, email, name: null },
      role: 'viewer',
      projects: [],
      source: 'direct',
      grants: [{ project: null, role: 'viewer', source: 'direct', group: null, managedBy: 'api' }],
      active: true,
      lastSignInAt: null,
    });
    const [user] = await a.dataSource.query('SELECT email, oidc_subject, instance_admin, active FROM users WHERE id = $1', [put.body.id]);
    expect(user).toEqual({ email, oidc_subject: null, instance_admin: false, active: true });
    // Any case names the same user; the same role again changes nothing.
    const again = await a.http().put(`${members()}/${email.toLowerCase()}`).set(admin).send({ role: 'viewer' }).expect(200);
    expect(again.body.id).toBe(put.body.id);
    await a.http().put(`${projectMembers()}/${put.body.id}`).set(admin).send({ role: 'deployer' }).expect(200);
    expect(await membershipRows(put.body.id)).toEqual([
      { project: null, role: 'viewer', managed_by: 'api' },
      { project: p.project, role: 'deployer', managed_by: 'api' },
    ]);

    const listed = await a.http().get(members()).set(admin).expect(200);
    expect(listed.body).toMatchObject({ object: 'list', has_more: false });
    expect(listed.body.data.find((m: { id: string }) => m.id === put.body.id)).toMatchObject({
      role: 'viewer',
      projects: [{ project: p.project, role: 'deployer' }],
    });
    const ws = await workspaceIdOf(p.workspace);
    expect(await auditOf(ws, put.body.id)).toEqual([
      {
        action: 'user.created',
        actor_kind: 'admin',
        actor_key_name: 'PARLEY_ADMIN_KEY',
        actor_user_email: null,
        before: null,
        after: { email },
      },
      expect.objectContaining({ action: 'member.added', after: { user: email, project: null, role: 'viewer', managedBy: 'api' } }),
      expect.objectContaining({ action: 'member.added', after: { user: email, project: p.project, role: 'deployer', managedBy: 'api' } }),
    ]);
  });

  it('a viewer reads and cannot write; raised to editor writes on the next request; removed, is refused on every instance within 1 s', async () => {
    const email = `vic-${randomUUID().slice(0, 8)}@example.com`;
    const userId = (await a.http().put(`${members()}/${email}`).set(admin).send({ role: 'viewer' }).expect(200)).body.id;
    const person = await signedIn(userId);
    await a.http().get('/v2/prompts').set(person).expect(200);
    const refused = await a.http().post('/v2/prompts').set(person).send({ slug: 'by-vic', kind: 'prompt' });
    expect([refused.status, refused.body.message]).toEqual([403, 'Your role here lacks the scope this endpoint needs: registry:write']);

    await a.http().put(`${members()}/${userId}`).set(admin).send({ role: 'editor' }).expect(200);
    expect(await membershipRows(userId)).toEqual([{ project: null, role: 'editor', managed_by: 'api' }]);
    // The other instance sees the new role on its very next request: nothing is cached.
    await b.http().post('/v2/prompts').set(person).send({ slug: 'by-vic', kind: 'prompt' }).expect(200);
    const [audited] = await a.dataSource.query(
      `SELECT actor_kind, actor_user_id, actor_user_email FROM audit_events WHERE project_id = $1 AND action = 'prompt.created' AND resource_id = 'by-vic'`,
      [p.projectId],
    );
    expect(audited).toEqual({ actor_kind: 'user', actor_user_id: userId, actor_user_email: email });

    const second = await signedIn(userId);
    const removed = await a.http().delete(`${members()}/${email}`).set(admin).expect(200);
    expect(removed.body).toEqual({ id: userId, object: 'member.removed', removed: 1, sessionsEnded: 2 });
    const refusedAt = Date.now();
    for (const instance of [a, b]) {
      for (const headers of [person, second]) {
        let status = 0;
        while (Date.now() - refusedAt < 1000 && (status = (await instance.http().get('/v2/prompts').set(headers)).status) !== 401)
          await sleep(20);
        expect(status).toBe(401);
      }
    }
    expect(Date.now() - refusedAt).toBeLessThan(1000);
    expect(await membershipRows(userId)).toEqual([]);
    const sessions = await a.dataSource.query(
      'SELECT count(*)::int AS live FROM console_sessions WHERE user_id = $1 AND revoked_at IS NULL',
      [userId],
    );
    expect(sessions).toEqual([{ live: 0 }]);
    const actions = (await auditOf(await workspaceIdOf(p.workspace), userId)).map((row: { action: string }) => row.action);
    expect(actions).toEqual(['user.created', 'member.added', 'member.role_changed', 'member.removed']);
  });

  it('a person who keeps a role elsewhere keeps their sessions; what they lost is refused at once', async () => {
    const other = await createProject(a);
    const email = `kit-${randomUUID().slice(0, 8)}@example.com`;
    const userId = (await a.http().put(`${projectMembers()}/${email}`).set(admin).send({ role: 'editor' }).expect(200)).body.id;
    await a.http().put(`/v2/workspaces/${other.workspace}/members/${email}`).set(admin).send({ role: 'viewer' }).expect(200);
    const here = await signedIn(userId);
    await a.http().get('/v2/prompts').set(here).expect(200);
    const removed = await a.http().delete(`${projectMembers()}/${userId}`).set(admin).expect(200);
    expect(removed.body).toMatchObject({ removed: 1, sessionsEnded: 0 });
    expectResourceError(await b.http().get('/v2/prompts').set(here), 404, 'Project not found');
    await b
      .http()
      .get('/v2/prompts')
      .set({ ...here, 'X-Parley-Project': `${other.workspace}/${other.project}` })
      .expect(200);
  });

  it("a workspace admin key and a workspace's admin person manage its members; another workspace is not found", async () => {
    const theirs = await createProject(a);
    const wk = { 'X-API-Key': (await a.http().post(`/v2/workspaces/${p.workspace}/admin-keys`).set(admin).send({}).expect(200)).body.key };
    const bossEmail = `boss-${randomUUID().slice(0, 8)}@example.com`;
    const boss = (await a.http().put(`${members()}/${bossEmail}`).set(wk).send({ role: 'admin' }).expect(200)).body.id;
    const asBoss = await signedIn(boss, null);
    const hire = `hire-${randomUUID().slice(0, 8)}@example.com`;
    const hired = await a.http().put(`${members()}/${hire}`).set(asBoss).send({ role: 'editor' }).expect(200);
    await a.http().put(`${projectMembers()}/${hire}`).set(asBoss).send({ role: 'deployer' }).expect(200);
    const [audited] = (await auditOf(await workspaceIdOf(p.workspace), hired.body.id)).filter(
      (row: { action: string }) => row.action === 'member.added',
    );
    expect(audited).toMatchObject({ actor_kind: 'user', actor_user_email: bossEmail });

    for (const caller of [wk, asBoss]) {
      for (const res of [
        await a.http().get(`/v2/workspaces/${theirs.workspace}/members`).set(caller),
        await a.http().put(`/v2/workspaces/${theirs.workspace}/members/${hire}`).set(caller).send({ role: 'viewer' }),
        await a.http().get(`/v2/workspaces/${theirs.workspace}/group-roles`).set(caller),
      ])
        expectResourceError(res, 404, 'Workspace not found');
    }
    // A project admin person manages the project's members (with X-Parley-Project), not the workspace's.
    const lead = (
      await a
        .http()
        .put(`${projectMembers()}/lead-${randomUUID().slice(0, 8)}@example.com`)
        .set(wk)
        .send({ role: 'admin' })
    ).body.id;
    const asLead = await signedIn(lead);
    await a.http().put(`${projectMembers()}/${hire}`).set(asLead).send({ role: 'viewer' }).expect(200);
    const denied = await a.http().get(members()).set(asLead);
    expect([denied.status, denied.body.message]).toEqual([403, "This needs the workspace's admin role"]);
    // An editor person lacks members:manage.
    const asHire = await signedIn(hired.body.id);
    const lacking = await a.http().get(projectMembers()).set(asHire);
    expect([lacking.status, lacking.body.message]).toEqual([403, 'Your role here lacks the scope this endpoint needs: members:manage']);
  });

  it('a user id the workspace does not know is not found; bad roles, users and cursors are 400s', async () => {
    const stranger = `stranger-${randomUUID().slice(0, 8)}@example.com`;
    const other = await createProject(a);
    const strangerId = (await a.http().put(`/v2/workspaces/${other.workspace}/members/${stranger}`).set(admin).send({ role: 'viewer' }))
      .body.id;
    const wk = { 'X-API-Key': (await a.http().post(`/v2/workspaces/${p.workspace}/admin-keys`).set(admin).send({}).expect(200)).body.key };
    expectResourceError(await a.http().put(`${members()}/${strangerId}`).set(wk).send({ role: 'viewer' }), 404, 'User not found');
    expectResourceError(await a.http().put(`${members()}/${randomUUID()}`).set(admin).send({ role: 'viewer' }), 404, 'User not found');
    expectResourceError(await a.http().delete(`${members()}/${stranger}`).set(wk), 404, 'Member not found');
    expectResourceError(
      await a
        .http()
        .put(`/v2/workspaces/${uniqueSlug('nope')}/members/${stranger}`)
        .set(admin)
        .send({ role: 'viewer' }),
      404,
      'Workspace not found',
    );
    expectResourceError(await a.http().get(`/v2/workspaces/${p.workspace}/projects/nope/members`).set(admin), 404, 'Project not found');

    for (const body of [{ role: 'owner' }, {}, { role: 'viewer', extra: 1 }]) {
      const res = await a.http().put(`${members()}/${stranger}`).set(admin).send(body);
      expect([JSON.stringify(body), res.status, res.body.error.message]).toEqual([JSON.stringify(body), 400, 'Invalid request body']);
    }
    const badUser = await a.http().put(`${members()}/not-a-user`).set(admin).send({ role: 'viewer' });
    expect([badUser.status, badUser.body]).toEqual([
      400,
      { error: { message: 'Invalid request parameters', details: ['user: expected a user id or an e-mail address'] } },
    ]);
    const badCursor = await a.http().get(`${members()}?after=nope`).set(admin);
    expect([badCursor.status, badCursor.body]).toEqual([
      400,
      { error: { message: 'Invalid request parameters', details: ["after: expected a member's id (the last_id of the previous page)"] } },
    ]);
    // Nothing was made for any of them.
    expect(await a.dataSource.query('SELECT count(*)::int AS n FROM memberships WHERE user_id = $1', [strangerId])).toEqual([{ n: 1 }]);
  });

  it('pages the members by user id', async () => {
    const q = await createProject(a);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (
          await a
            .http()
            .put(`/v2/workspaces/${q.workspace}/members/m${i}-${randomUUID().slice(0, 8)}@example.com`)
            .set(admin)
            .send({ role: 'viewer' })
        ).body.id,
      );
    const first = await a.http().get(`/v2/workspaces/${q.workspace}/members?limit=2`).set(admin).expect(200);
    expect([first.body.data.map((m: { id: string }) => m.id), first.body.has_more]).toEqual([[...ids].sort().slice(0, 2), true]);
    const rest = await a.http().get(`/v2/workspaces/${q.workspace}/members?limit=2&after=${first.body.last_id}`).set(admin).expect(200);
    expect([rest.body.data.map((m: { id: string }) => m.id), rest.body.has_more]).toEqual([[...ids].sort().slice(2), false]);
  });

  it("a person cannot step down as a workspace's only admin (409); with another admin they can", async () => {
    const q = await createProject(a);
    const path = `/v2/workspaces/${q.workspace}/members`;
    const email = `solo-${randomUUID().slice(0, 8)}@example.com`;
    const solo = (await a.http().put(`${path}/${email}`).set(admin).send({ role: 'admin' }).expect(200)).body.id;
    const asSolo = await signedIn(solo, null);
    const message = `You are the only admin of workspace "${q.workspace}": make someone else its admin before you give up the role`;
    expectResourceError(await a.http().put(`${path}/${solo}`).set(asSolo).send({ role: 'editor' }), 409, message);
    expectResourceError(await a.http().delete(`${path}/${solo}`).set(asSolo), 409, message);
    expect(await membershipRows(solo)).toEqual([{ project: null, role: 'admin', managed_by: 'api' }]);
    await a
      .http()
      .put(`${path}/deputy-${randomUUID().slice(0, 8)}@example.com`)
      .set(asSolo)
      .send({ role: 'admin' })
      .expect(200);
    await a.http().put(`${path}/${solo}`).set(asSolo).send({ role: 'editor' }).expect(200);
    expect(await membershipRows(solo)).toEqual([{ project: null, role: 'editor', managed_by: 'api' }]);
  });

  it("group roles: a group's members hold the role from their next request, and lose it when it is removed", async () => {
    const group = `support-${randomUUID().slice(0, 8)}`;
    const email = `grp-${randomUUID().slice(0, 8)}@example.com`;
    // A user in the group by their last sign-in's groups claim, with no membership of their own here.
    const other = await createProject(a);
    const userId = (await a.http().put(`/v2/workspaces/${other.workspace}/members/${email}`).set(admin).send({ role: 'viewer' })).body.id;
    await a.dataSource.query('INSERT INTO user_claim_groups (user_id, name) VALUES ($1, $2)', [userId, group]);
    const person = await signedIn(userId);
    expectResourceError(await a.http().get('/v2/prompts').set(person), 404, 'Project not found');

    const set = await a
      .http()
      .put(`/v2/workspaces/${p.workspace}/group-roles/${group}`)
      .set(admin)
      .send({ role: 'editor', project: p.project });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      id: expect.any(String),
      object: 'group_role',
      group,
      project: p.project,
      role: 'editor',
      managedBy: 'api',
      createdAt: expect.any(String),
    });
    await b
      .http()
      .post('/v2/prompts')
      .set(person)
      .send({ slug: `g-${randomUUID().slice(0, 8)}`, kind: 'prompt' })
      .expect(200);
    const listed = await a.http().get(projectMembers()).set(admin).expect(200);
    expect(listed.body.data.find((m: { id: string }) => m.id === userId)).toMatchObject({
      source: 'group',
      role: null,
      projects: [{ project: p.project, role: 'editor' }],
      grants: [{ project: p.project, role: 'editor', source: 'group', group, managedBy: 'api' }],
    });
    const roles = await a.http().get(`/v2/workspaces/${p.workspace}/group-roles`).set(admin).expect(200);
    expect(roles.body.data.filter((r: { group: string }) => r.group === group)).toHaveLength(1);

    expectResourceError(
      await a.http().delete(`/v2/workspaces/${p.workspace}/group-roles/${group}`).set(admin),
      404,
      'Group role not found',
    );
    await a.http().delete(`/v2/workspaces/${p.workspace}/group-roles/${group}?project=${p.project}`).set(admin).expect(200);
    expectResourceError(await b.http().get('/v2/prompts').set(person), 404, 'Project not found');
    const actions = await a.dataSource.query(
      `SELECT action, before->>'role' AS before, after->>'role' AS after FROM instance_audit_events
        WHERE workspace_id = $1 AND resource_type = 'group_role' AND resource_id = $2 ORDER BY id`,
      [await workspaceIdOf(p.workspace), group],
    );
    expect(actions).toEqual([
      { action: 'group_role.set', before: null, after: 'editor' },
      { action: 'group_role.removed', before: 'editor', after: null },
    ]);
    for (const bad of ['%20padded', 'x'.repeat(201)]) {
      const res = await a.http().put(`/v2/workspaces/${p.workspace}/group-roles/${bad}`).set(admin).send({ role: 'viewer' });
      expect(res.status).toBe(400);
    }
  });

  it('instance admins: the instance admin key or person only; a person cannot end their own as the last one', async () => {
    const email = `root-${randomUUID().slice(0, 8)}@example.com`;
    const made = await a.http().put(`/v2/admin/users/${email}/instance-admin`).set(admin).expect(200);
    expect(made.body).toMatchObject({ object: 'user', email, instanceAdmin: true, active: true, lastSignInAt: null });
    const root = await signedIn(made.body.id, null);
    // As the instance's admin: every workspace's members.
    await a.http().get(members()).set(root).expect(200);
    const listed = await a.http().get('/v2/admin/users?limit=100').set(root).expect(200);
    expect(listed.body.object).toBe('list');

    const wk = { 'X-API-Key': (await a.http().post(`/v2/workspaces/${p.workspace}/admin-keys`).set(admin).send({}).expect(200)).body.key };
    const refused = await a.http().put(`/v2/admin/users/${email}/instance-admin`).set(wk);
    expect([refused.status, refused.body.message]).toEqual([403, "This endpoint needs the instance's admin API key"]);

    // Other files of this jest worker may have left instance admins: the rule is the 409 with none, a 200 with some.
    const others: { id: string }[] = await a.dataSource.query('SELECT id FROM users WHERE instance_admin AND active AND id <> $1', [
      made.body.id,
    ]);
    const own = await a.http().delete(`/v2/admin/users/${made.body.id}/instance-admin`).set(root);
    if (others.length === 0) {
      expectResourceError(own, 409, 'You are the only instance admin: make someone else one before you give up the role');
    } else expect(own.status).toBe(200);
    const revoked = await a.http().delete(`/v2/admin/users/${email}/instance-admin`).set(admin).expect(200);
    expect(revoked.body.instanceAdmin).toBe(false);
    // No role anywhere any more: their sessions ended.
    expect((await b.http().get(members()).set(root)).status).toBe(401);
    const audited = await a.dataSource.query(
      `SELECT action FROM instance_audit_events WHERE workspace_id IS NULL AND resource_id = $1 ORDER BY id`,
      [made.body.id],
    );
    expect(audited.map((r: { action: string }) => r.action)).toEqual([
      'user.created',
      'user.instance_admin_granted',
      'user.instance_admin_revoked',
    ]);
  });

  it("a project key with members:manage manages its own project's members, never giving more than it holds", async () => {
    const key = (
      await a
        .http()
        .post(`/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`)
        .set(admin)
        .send({ preset: 'viewer', scopes: ['members:manage'] })
        .expect(200)
    ).body.key;
    const as = { 'X-API-Key': key };
    const email = `pk-${randomUUID().slice(0, 8)}@example.com`;
    await a.http().put(`${projectMembers()}/${email}`).set(as).send({ role: 'viewer' }).expect(200);
    const beyond = await a.http().put(`${projectMembers()}/${email}`).set(as).send({ role: 'editor' });
    expect([beyond.status, beyond.body.message]).toEqual([
      403,
      'The editor role holds scopes this caller does not hold: invoke, threads:write, feedback:write, registry:write',
    ]);
    const other = await createProject(a);
    expectResourceError(
      await a.http().get(`/v2/workspaces/${other.workspace}/projects/${other.project}/members`).set(as),
      404,
      'Project not found',
    );
    const workspaceRoute = await a.http().get(members()).set(as);
    expect(workspaceRoute.status).toBe(403);
  });
});
