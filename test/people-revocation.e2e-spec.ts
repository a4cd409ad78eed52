import { randomUUID } from 'node:crypto';

import { createProject, TestProject, uniqueSlug } from './support/factories';
import { expectResourceError } from './support/http';
import {
  createScimToken,
  insertMembership,
  oktaUser,
  patchOp,
  personSession,
  projectStatus,
  scimClient,
  workspaceIdOf,
} from './support/scim-client';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/**
 * Losing a role ends what it gave (docs/security.md, "Roles", "SCIM"): a SCIM directory that
 * deactivates or deletes an instance admin unmakes them one; removing a group role, through the
 * API or parley.yaml, ends the sessions of the people it left with no role anywhere, so giving the
 * role back does not revive them; a person does not remove the group role that made them a
 * workspace's only admin.
 */
describe('people: revocation ends sessions', () => {
  let t: TestApp;
  let p: TestProject;
  const admin = { 'X-API-Key': TEST_ADMIN_KEY };

  beforeAll(async () => {
    t = await createTestApp();
    p = await createProject(t);
  });
  afterAll(() => t.close());

  const userOf = async (email: string): Promise<string> =>
    (
      await t
        .http()
        .put(`/v2/admin/users/${encodeURIComponent(email)}/instance-admin`)
        .set(admin)
        .expect(200)
    ).body.id;
  const liveSessions = async (userId: string): Promise<number> =>
    (await t.dataSource.query('SELECT count(*)::int AS n FROM console_sessions WHERE user_id = $1 AND revoked_at IS NULL', [userId]))[0].n;
  const instanceAdmin = async (userId: string): Promise<boolean> =>
    (await t.dataSource.query('SELECT instance_admin FROM users WHERE id = $1', [userId]))[0].instance_admin;
  const adminRoute = (cookie: string) => t.http().get('/v2/admin/users').set('Cookie', cookie);

  it('a SCIM deactivation unmakes an instance admin (audited) and ends their sessions when no role is left', async () => {
    const q = await createProject(t);
    const okta = scimClient(t.http, (await createScimToken(t.http, q.workspace)).token);
    const email = `${uniqueSlug('boss')}@example.com`;
    const userId = await userOf(email);
    const cookie = await personSession(t, userId);
    await adminRoute(cookie).expect(200);

    expect((await okta.post('/Users', oktaUser(email)).expect(201)).body.id).toBe(userId);
    await okta.patch(`/Users/${userId}`, patchOp({ op: 'replace', value: { active: false } })).expect(200);
    expect(await instanceAdmin(userId)).toBe(false);
    expect((await adminRoute(cookie)).status).toBe(401);
    expect(await liveSessions(userId)).toBe(0);
    const audit = await t.dataSource.query(
      `SELECT workspace_id, actor_kind, after FROM instance_audit_events WHERE resource_id = $1 AND action = 'user.instance_admin_revoked'`,
      [userId],
    );
    expect(audit).toEqual([
      {
        workspace_id: await workspaceIdOf(t, q.workspace),
        actor_kind: expect.any(String),
        after: { email, instanceAdmin: false, reason: 'scim_deactivated' },
      },
    ]);
  });

  it('a SCIM delete unmakes an instance admin; one who keeps a role elsewhere keeps the session, refused the admin routes', async () => {
    const q = await createProject(t);
    const okta = scimClient(t.http, (await createScimToken(t.http, q.workspace)).token);
    const email = `${uniqueSlug('boss')}@example.com`;
    const userId = await userOf(email);
    await insertMembership(t, userId, await workspaceIdOf(t, p.workspace), 'viewer');
    const cookie = await personSession(t, userId);
    await okta.post('/Users', oktaUser(email)).expect(201);
    await okta.delete(`/Users/${userId}`).expect(204);
    expect(await instanceAdmin(userId)).toBe(false);
    expect((await adminRoute(cookie)).status).toBe(403);
    expect(await projectStatus(t.http, cookie, p.workspace, p.project)).toBe(200);
    expect(await liveSessions(userId)).toBe(1);
  });

  /** A user in `group` by their last sign-in's groups claim, holding nothing else; with a live session. */
  async function groupPerson(group: string): Promise<{ userId: string; cookie: string }> {
    const [{ id: userId }] = await t.dataSource.query('INSERT INTO users (id, email, created_at) VALUES ($1, $2, now()) RETURNING id', [
      randomUUID(),
      `${uniqueSlug('eng')}@example.com`,
    ]);
    await t.dataSource.query('INSERT INTO user_claim_groups (user_id, name) VALUES ($1, $2)', [userId, group]);
    return { userId, cookie: await personSession(t, userId) };
  }

  it('removing a group role ends the sessions of those it left with no role; giving it back does not revive them', async () => {
    const group = `eng-${randomUUID().slice(0, 8)}`;
    const path = `/v2/workspaces/${p.workspace}/group-roles/${group}`;
    await t.http().put(path).set(admin).send({ role: 'editor' }).expect(200);
    const only = await groupPerson(group);
    const kept = await groupPerson(group);
    await insertMembership(t, kept.userId, await workspaceIdOf(t, (await createProject(t)).workspace), 'viewer');
    expect(await projectStatus(t.http, only.cookie, p.workspace, p.project)).toBe(200);

    await t.http().delete(path).set(admin).expect(200);
    expect(await liveSessions(only.userId)).toBe(0);
    expect(await liveSessions(kept.userId)).toBe(1);
    await t.http().put(path).set(admin).send({ role: 'editor' }).expect(200);
    expect(await projectStatus(t.http, only.cookie, p.workspace, p.project)).toBe(401);
    expect(await projectStatus(t.http, kept.cookie, p.workspace, p.project)).toBe(200);
  });

  it("a person cannot remove or lower the group role that makes them a workspace's only admin (409)", async () => {
    const q = await createProject(t);
    const group = `leads-${randomUUID().slice(0, 8)}`;
    const path = `/v2/workspaces/${q.workspace}/group-roles/${group}`;
    await t.http().put(path).set(admin).send({ role: 'admin' }).expect(200);
    const lead = await groupPerson(group);
    const asLead = { Cookie: lead.cookie, 'X-Parley-CSRF': '1' };
    const message = `You are the only admin of workspace "${q.workspace}": make someone else its admin before you give up the role`;
    expectResourceError(await t.http().delete(path).set(asLead), 409, message);
    expectResourceError(await t.http().put(path).set(asLead).send({ role: 'editor' }), 409, message);
    expect(await t.dataSource.query('SELECT role FROM group_roles WHERE group_name = $1', [group])).toEqual([{ role: 'admin' }]);

    await t
      .http()
      .put(`/v2/workspaces/${q.workspace}/members/deputy-${randomUUID().slice(0, 8)}@example.com`)
      .set(asLead)
      .send({ role: 'admin' })
      .expect(200);
    await t.http().delete(path).set(asLead).expect(200);
    expect(await liveSessions(lead.userId)).toBe(0);
  });

  it('parley apply removing a group role or a membership ends the sessions of those left with no role', async () => {
    const workspace = uniqueSlug('access');
    const group = `eng-${randomUUID().slice(0, 8)}`;
    const member = `${uniqueSlug('ana')}@example.com`;
    const file = (access: string) => `
workspace: ${workspace}
project: support
prompts:
  - slug: reply
    model: echo
    template:
      - { role: system, content: "Be brief." }
${access}`;
    const apply = (yaml: string) => t.http().post('/v2/apply').set(admin).send({ yaml }).expect(200);
    await apply(file(`access:\n  groups:\n    ${group}: editor\n  members:\n    ${member}: viewer\n`));
    const viaGroup = await groupPerson(group);
    const [{ id: memberId }] = await t.dataSource.query('SELECT id FROM users WHERE lower(email) = lower($1)', [member]);
    const direct = await personSession(t, memberId);
    expect(await projectStatus(t.http, viaGroup.cookie, workspace, 'support')).toBe(200);
    expect(await projectStatus(t.http, direct, workspace, 'support')).toBe(200);

    await apply(file('access:\n  groups: {}\n  members: {}\n'));
    expect(await liveSessions(viaGroup.userId)).toBe(0);
    expect(await liveSessions(memberId)).toBe(0);
  });
});
