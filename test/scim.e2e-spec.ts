import { createHash, randomUUID } from 'node:crypto';

import { createProject, TestProject, uniqueSlug } from './support/factories';
import {
  createScimToken,
  ERROR_SCHEMA,
  GROUP_SCHEMA,
  insertGroupRole,
  insertMembership,
  oktaUser,
  patchOp,
  personSession,
  projectStatus,
  SCIM_JSON,
  ScimClient,
  scimClient,
  workspaceIdOf,
} from './support/scim-client';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

const PUBLIC_URL = 'https://parley.example.com';
const BASE = `${PUBLIC_URL}/scim/v2`;

/**
 * SCIM 2.0 provisioning (docs/security.md, "SCIM"), called as Okta and Entra call it: plain HTTP
 * with the workspace's bearer token. Checks what the identity provider sees, what a provisioned
 * person's console session may reach before and after (a session made through the app's own
 * ConsoleSessionsService, as the OIDC sign-in makes one), and the rows and audit rows written.
 */
describe('SCIM 2.0', () => {
  let t: TestApp;
  let p: TestProject;
  let q: TestProject;
  let wsP: string;
  let wsQ: string;
  let tokenP: { id: string; token: string };
  let okta: ScimClient;
  let other: ScimClient;

  beforeAll(async () => {
    t = await createTestApp({ PUBLIC_URL });
    p = await createProject(t);
    q = await createProject(t);
    wsP = await workspaceIdOf(t, p.workspace);
    wsQ = await workspaceIdOf(t, q.workspace);
    tokenP = await createScimToken(t.http, p.workspace, 'okta');
    okta = scimClient(t.http, tokenP.token);
    other = scimClient(t.http, (await createScimToken(t.http, q.workspace, 'entra')).token);
  });
  afterAll(() => t.close());

  const email = () => `${uniqueSlug('ada')}@example.com`;
  const auditOf = (resourceId: string) =>
    t.dataSource.query(
      `SELECT action, actor_kind, actor_key_id, actor_key_name, before, after, request_id FROM instance_audit_events
        WHERE resource_id = $1 ORDER BY id`,
      [resourceId],
    );
  const expectScimError = (res: { status: number; body: unknown; headers: Record<string, string> }, status: number, scimType?: string) => {
    expect([res.status, res.headers['content-type'], res.body]).toEqual([
      status,
      `${SCIM_JSON}; charset=utf-8`,
      { schemas: [ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail: expect.any(String) },
    ]);
  };

  it('a workspace admin makes, lists and revokes SCIM tokens; the secret is shown once and stored hashed; a revoked token is refused', async () => {
    const admin = { 'X-API-Key': TEST_ADMIN_KEY };
    const created = await t.http().post(`/v2/workspaces/${p.workspace}/scim-tokens`).set(admin).send({ name: 'entra' }).expect(200);
    expect(created.body).toEqual({
      id: expect.any(String),
      object: 'scim_token',
      name: 'entra',
      prefix: created.body.token.slice(0, 10),
      workspaceId: wsP,
      workspace: p.workspace,
      token: expect.stringMatching(/^pscim_[A-Za-z0-9_-]{32}$/),
      createdAt: expect.any(String),
      lastUsedAt: null,
      revokedAt: null,
    });
    const [row] = await t.dataSource.query('SELECT * FROM scim_tokens WHERE id = $1', [created.body.id]);
    expect(row.token_hash).toBe(createHash('sha256').update(created.body.token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(created.body.token);

    const client = scimClient(t.http, created.body.token);
    await client.get('/Users').expect(200);
    const listed = await t.http().get(`/v2/workspaces/${p.workspace}/scim-tokens`).set(admin).expect(200);
    expect(listed.body.data.find((tok: { id: string }) => tok.id === created.body.id)).toMatchObject({ lastUsedAt: expect.any(String) });
    expect(JSON.stringify(listed.body)).not.toContain(created.body.token);

    // A workspace admin key manages its own workspace's tokens only.
    const wk = (await t.http().post(`/v2/workspaces/${p.workspace}/admin-keys`).set(admin).send({ name: 'p-admin' }).expect(200)).body.key;
    await t.http().get(`/v2/workspaces/${p.workspace}/scim-tokens`).set('X-API-Key', wk).expect(200);
    expect((await t.http().get(`/v2/workspaces/${q.workspace}/scim-tokens`).set('X-API-Key', wk)).status).toBe(404);
    expect((await t.http().post(`/v2/workspaces/${q.workspace}/scim-tokens`).set('X-API-Key', wk).send({})).status).toBe(404);

    await t.http().delete(`/v2/workspaces/${p.workspace}/scim-tokens/${created.body.id}`).set('X-API-Key', wk).expect(200, {
      id: created.body.id,
      object: 'scim_token.revoked',
      revoked: true,
    });
    expectScimError(await client.get('/Users'), 401);
    expect((await t.http().delete(`/v2/workspaces/${p.workspace}/scim-tokens/${created.body.id}`).set(admin)).status).toBe(404);
    expect((await auditOf(created.body.id)).map((e: { action: string }) => e.action)).toEqual(['scim_token.created', 'scim_token.revoked']);
  });

  it('refuses a request without a live SCIM token with SCIM’s 401, API keys included', async () => {
    for (const authorization of [undefined, 'Bearer pscim_nope', `Bearer ${p.key}`, `Bearer ${TEST_ADMIN_KEY}`, 'Basic dXNlcjpwYXNz']) {
      const req = t.http().get('/scim/v2/Users');
      const res = await (authorization ? req.set('Authorization', authorization) : req);
      expectScimError(res, 401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="scim"');
    }
    expectScimError(await t.http().get('/scim/v2/ServiceProviderConfig').set('X-API-Key', TEST_ADMIN_KEY), 401);
  });

  it('describes itself: ServiceProviderConfig, ResourceTypes and Schemas, located under {PUBLIC_URL}/scim/v2', async () => {
    const config = await okta.get('/ServiceProviderConfig').expect(200);
    expect(config.headers['content-type']).toBe(`${SCIM_JSON}; charset=utf-8`);
    expect(config.body).toMatchObject({
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 200 },
      authenticationSchemes: [{ type: 'oauthbearertoken' }],
      meta: { location: `${BASE}/ServiceProviderConfig` },
    });
    const types = (await okta.get('/ResourceTypes').expect(200)).body;
    expect(types.Resources.map((r: { endpoint: string }) => r.endpoint)).toEqual(['/Users', '/Groups']);
    const schemas = (await okta.get('/Schemas').expect(200)).body;
    expect(schemas.totalResults).toBe(2);
    await okta.get(`/Schemas/${GROUP_SCHEMA}`).expect(200);
    expectScimError(await okta.get('/Schemas/urn:nope'), 404);
    expectScimError(await okta.get('/Bulk'), 404);
    expectScimError(await okta.post('/Users/x/y', {}), 404);
  });

  it('provisions a person (Okta), whose group gives a role; deactivation ends their access and sessions at once, reactivation restores the role', async () => {
    const address = email();
    const created = await okta.post('/Users', oktaUser(address)).expect(201);
    const id = created.body.id;
    expect(created.headers.location).toBe(`${BASE}/Users/${id}`);
    expect(created.body).toEqual({
      schemas: [oktaUser(address).schemas[0]],
      id,
      externalId: `okta-${address}`,
      userName: address,
      name: { givenName: 'Ada', familyName: 'Lovelace', formatted: 'Ada Lovelace' },
      displayName: 'Ada Lovelace',
      emails: [{ value: address, type: 'work', primary: true }],
      active: true,
      meta: { resourceType: 'User', created: expect.any(String), lastModified: expect.any(String), location: `${BASE}/Users/${id}` },
    });
    expect(await t.dataSource.query('SELECT email, name, active FROM users WHERE id = $1', [id])).toEqual([
      { email: address, name: 'Ada Lovelace', active: true },
    ]);
    expect(JSON.stringify(await t.dataSource.query('SELECT * FROM scim_users WHERE user_id = $1', [id]))).not.toContain('never-stored');
    expectScimError(await okta.post('/Users', oktaUser(address.toUpperCase())), 409, 'uniqueness');

    const group = await okta.post('/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Engineers', members: [{ value: id }] }).expect(201);
    await insertGroupRole(t, wsP, 'engineers', 'viewer'); // fixture: the group role the members API would make
    const cookie = await personSession(t, id);
    expect(await projectStatus(t.http, cookie, p.workspace, p.project)).toBe(200);

    const deactivated = await okta.patch(`/Users/${id}`, patchOp({ op: 'replace', value: { active: false } })).expect(200);
    expect(deactivated.body.active).toBe(false);
    expect(await projectStatus(t.http, cookie, p.workspace, p.project)).toBe(401);
    expect(await t.dataSource.query('SELECT active FROM scim_users WHERE user_id = $1 AND workspace_id = $2', [id, wsP])).toEqual([
      { active: false },
    ]);
    const sessions = await t.dataSource.query('SELECT revoked_at FROM console_sessions WHERE user_id = $1', [id]);
    expect(sessions.map((s: { revoked_at: Date | null }) => s.revoked_at !== null)).toEqual([true]);

    // Entra's string boolean reactivates; the role returns for a new session, the ended one stays ended.
    await okta.patch(`/Users/${id}`, patchOp({ op: 'Replace', path: 'active', value: 'True' })).expect(200);
    expect(await projectStatus(t.http, cookie, p.workspace, p.project)).toBe(401);
    expect(await projectStatus(t.http, await personSession(t, id), p.workspace, p.project)).toBe(200);

    const audit = await auditOf(id);
    expect(audit.map((e: { action: string }) => e.action)).toEqual(['scim_user.created', 'scim_user.deactivated', 'scim_user.reactivated']);
    for (const event of audit) {
      expect(event).toMatchObject({ actor_kind: 'scim', actor_key_id: tokenP.id, actor_key_name: 'okta', request_id: expect.any(String) });
    }
    expect(audit[1]).toMatchObject({ before: { active: true }, after: { active: false } });
    expect((await auditOf(group.body.id)).map((e: { action: string }) => e.action)).toEqual(['scim_group.created']);
  });

  it('deactivation stops the roles of this workspace only; a person with a role elsewhere keeps their session', async () => {
    const id = (await okta.post('/Users', oktaUser(email())).expect(201)).body.id;
    await insertMembership(t, id, wsP, 'viewer'); // fixture: direct memberships, as the members API makes them
    await insertMembership(t, id, wsQ, 'viewer');
    const cookie = await personSession(t, id);
    expect(await projectStatus(t.http, cookie, p.workspace, p.project)).toBe(200);
    await okta.patch(`/Users/${id}`, patchOp({ op: 'Replace', path: 'active', value: 'False' })).expect(200);
    expect(await projectStatus(t.http, cookie, p.workspace, p.project)).toBe(404);
    expect(await projectStatus(t.http, cookie, q.workspace, q.project)).toBe(200);
    expect(
      await t.dataSource.query('SELECT count(*)::int AS n FROM console_sessions WHERE user_id = $1 AND revoked_at IS NULL', [id]),
    ).toEqual([{ n: 1 }]);
    // Deleting removes this workspace's record and memberships; the person and their role elsewhere stay.
    await okta.delete(`/Users/${id}`).expect(204);
    expect(await t.dataSource.query('SELECT workspace_id FROM memberships WHERE user_id = $1', [id])).toEqual([{ workspace_id: wsQ }]);
    expect(await t.dataSource.query('SELECT count(*)::int AS n FROM users WHERE id = $1', [id])).toEqual([{ n: 1 }]);
    expect(await projectStatus(t.http, cookie, q.workspace, q.project)).toBe(200);
  });

  it('groups (Entra): members added and removed by PATCH change access; a delete removes the person from the workspace and ends their sessions', async () => {
    const ada = (await okta.post('/Users', oktaUser(email())).expect(201)).body.id;
    const bob = (await okta.post('/Users', oktaUser(email(), { externalId: 'entra-bob' })).expect(201)).body.id;
    const name = uniqueSlug('Deployers');
    const group = (await okta.post('/Groups', { displayName: name, externalId: 'g-1', members: [{ value: ada }] }).expect(201)).body;
    expect(group).toMatchObject({ displayName: name, members: [{ value: ada, $ref: `${BASE}/Users/${ada}`, type: 'User' }] });
    await insertGroupRole(t, wsP, name, 'editor'); // fixture: the group role the members API would make
    const bobCookie = await personSession(t, bob);
    expect(await projectStatus(t.http, bobCookie, p.workspace, p.project)).toBe(401);

    await okta.patch(`/Groups/${group.id}`, patchOp({ op: 'Add', path: 'members', value: [{ value: bob }] })).expect(204);
    const bobSession = await personSession(t, bob);
    expect(await projectStatus(t.http, bobSession, p.workspace, p.project)).toBe(200);
    await okta.patch(`/Groups/${group.id}`, patchOp({ op: 'Remove', path: `members[value eq "${bob}"]` })).expect(204);
    expect(await projectStatus(t.http, bobSession, p.workspace, p.project)).toBe(401);
    expect((await okta.get(`/Groups/${group.id}`).expect(200)).body.members.map((m: { value: string }) => m.value)).toEqual([ada]);
    expect((await okta.get(`/Groups/${group.id}?excludedAttributes=members`).expect(200)).body.members).toBeUndefined();

    // Okta renames with a pathless replace that carries the id; the role follows the name.
    const adaCookie = await personSession(t, ada);
    await okta
      .patch(`/Groups/${group.id}`, patchOp({ op: 'replace', value: { id: group.id, displayName: `${name}-renamed` } }))
      .expect(204);
    expect(await projectStatus(t.http, adaCookie, p.workspace, p.project)).toBe(401);
    await okta.put(`/Groups/${group.id}`, { displayName: name, members: [{ value: ada }, { value: bob }] }).expect(200);
    const adaAgain = await personSession(t, ada);
    expect(await projectStatus(t.http, adaAgain, p.workspace, p.project)).toBe(200);

    await okta.delete(`/Users/${ada}`).expect(204);
    expect(await projectStatus(t.http, adaAgain, p.workspace, p.project)).toBe(401);
    expect(await t.dataSource.query('SELECT count(*)::int AS n FROM scim_users WHERE user_id = $1', [ada])).toEqual([{ n: 0 }]);
    expect(await t.dataSource.query('SELECT user_id FROM scim_group_members WHERE group_id = $1', [group.id])).toEqual([{ user_id: bob }]);
    expect(await t.dataSource.query('SELECT email FROM users WHERE id = $1', [ada])).toHaveLength(1);
    expectScimError(await okta.get(`/Users/${ada}`), 404);
    await okta.delete(`/Groups/${group.id}`).expect(204);
    expect(await t.dataSource.query('SELECT count(*)::int AS n FROM scim_group_members WHERE group_id = $1', [group.id])).toEqual([
      { n: 0 },
    ]);
    expect((await auditOf(group.id)).map((e: { action: string }) => e.action)).toEqual([
      'scim_group.created',
      'scim_group.updated',
      'scim_group.updated',
      'scim_group.updated',
      'scim_group.updated',
      'scim_group.deleted',
    ]);
    expect((await auditOf(ada)).map((e: { action: string }) => e.action)).toEqual(['scim_user.created', 'scim_user.deleted']);
  });

  it('updates a person with PUT and with Entra’s PATCH operations; the e-mail follows while only this workspace knows them', async () => {
    const address = email();
    const id = (await okta.post('/Users', oktaUser(address)).expect(201)).body.id;
    const renamed = email();
    const updated = await okta
      .patch(
        `/Users/${id}`,
        patchOp(
          { op: 'Replace', path: 'userName', value: renamed },
          { op: 'Replace', value: { 'name.givenName': 'Augusta', 'name.familyName': 'King' } },
          { op: 'Replace', path: 'emails[type eq "work"].value', value: renamed },
          { op: 'Add', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department', value: 'R&D' },
        ),
      )
      .expect(200);
    expect(updated.body).toMatchObject({
      userName: renamed,
      name: { givenName: 'Augusta', familyName: 'King' },
      emails: [{ value: renamed }],
    });
    expect(await t.dataSource.query('SELECT email FROM users WHERE id = $1', [id])).toEqual([{ email: renamed }]);

    const put = await okta.put(`/Users/${id}`, { userName: renamed, displayName: 'A. King', emails: [{ value: renamed }] }).expect(200);
    expect(put.body).toMatchObject({ displayName: 'A. King', active: true });
    expect(put.body.name).toEqual({});
    expect(put.body.externalId).toBeUndefined();
    // An unchanged PUT (a directory's periodic sync) writes nothing.
    const before = (await auditOf(id)).length;
    await okta.put(`/Users/${id}`, { userName: renamed, displayName: 'A. King', emails: [{ value: renamed }] }).expect(200);
    expect(await auditOf(id)).toHaveLength(before);

    // Known to another workspace too: that directory's change stays in its own record.
    await scimClient(t.http, (await createScimToken(t.http, q.workspace, 'q2')).token)
      .post('/Users', oktaUser(renamed))
      .expect(201);
    await okta.patch(`/Users/${id}`, patchOp({ op: 'replace', path: 'userName', value: address })).expect(200);
    expect(await t.dataSource.query('SELECT email FROM users WHERE id = $1', [id])).toEqual([{ email: renamed }]);
  });

  it('filters on userName, externalId and emails with eq and and, pages with startIndex and count', async () => {
    const mark = uniqueSlug('pg');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await okta.post('/Users', oktaUser(`${mark}-${i}@example.com`, { externalId: `${mark}-${i}` })).expect(201)).body.id);
    const list = async (query: string) => (await okta.get(`/Users?${query}`).expect(200)).body;
    const one = await list(`filter=${encodeURIComponent(`userName eq "${mark.toUpperCase()}-1@EXAMPLE.COM"`)}`);
    expect(one).toMatchObject({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 1,
      startIndex: 1,
      itemsPerPage: 1,
    });
    expect(one.Resources[0].id).toBe(ids[1]);
    expect((await list(`filter=${encodeURIComponent(`externalId eq "${mark}-2"`)}`)).Resources[0].id).toBe(ids[2]);
    expect((await list(`filter=${encodeURIComponent(`externalId eq "${mark.toUpperCase()}-2"`)}`)).totalResults).toBe(0);
    const byEmail = `emails[type eq "work" and value eq "${mark}-0@example.com"] and userName eq "${mark}-0@example.com"`;
    expect((await list(`filter=${encodeURIComponent(byEmail)}`)).Resources[0].id).toBe(ids[0]);
    expect((await list(`filter=${encodeURIComponent(`emails.value eq "${mark}-0@example.com"`)}`)).totalResults).toBe(1);
    // The other workspace's directory sees none of them.
    expect(
      (await other.get(`/Users?filter=${encodeURIComponent(`userName eq "${mark}-0@example.com"`)}`).expect(200)).body.totalResults,
    ).toBe(0);
    const all = await list('count=500');
    expect(all.itemsPerPage).toBeLessThanOrEqual(200);
    const page = await list(`startIndex=2&count=1&filter=${encodeURIComponent(`userName eq "${mark}-0@example.com"`)}`);
    expect(page).toMatchObject({ totalResults: 1, startIndex: 2, itemsPerPage: 0, Resources: [] });
    expect((await list('count=0')).Resources).toEqual([]);

    for (const filter of ['userName co "x"', 'displayName eq "x"', 'userName eq "a" or userName eq "b"', 'userName eq', 'title eq "x"']) {
      expectScimError(await okta.get(`/Users?filter=${encodeURIComponent(filter)}`), 400, 'invalidFilter');
    }
    expectScimError(await okta.get('/Groups?filter=userName%20eq%20%22x%22'), 400, 'invalidFilter');
    expectScimError(await okta.get('/Users?count=abc'), 400, 'invalidValue');
    expectScimError(await okta.get('/Users?filter=a&filter=b'), 400, 'invalidValue');
  });

  it("another workspace's ids are not found; bad bodies and PATCH paths are SCIM's 400s and change nothing", async () => {
    const id = (await okta.post('/Users', oktaUser(email())).expect(201)).body.id;
    const group = (await okta.post('/Groups', { displayName: uniqueSlug('G'), members: [{ value: id }] }).expect(201)).body.id;
    for (const res of [
      await other.get(`/Users/${id}`),
      await other.put(`/Users/${id}`, oktaUser(email())),
      await other.patch(`/Users/${id}`, patchOp({ op: 'replace', path: 'active', value: false })),
      await other.delete(`/Users/${id}`),
      await other.get(`/Groups/${group}`),
      await other.patch(`/Groups/${group}`, patchOp({ op: 'remove', path: 'members' })),
      await other.delete(`/Groups/${group}`),
      await okta.get(`/Users/${randomUUID()}`),
      await okta.get('/Users/not-a-uuid'),
    ]) {
      expectScimError(res, 404);
    }
    // Someone else's user cannot be put in this directory's group.
    const theirs = (await other.post('/Users', oktaUser(email())).expect(201)).body.id;
    expectScimError(
      await okta.patch(`/Groups/${group}`, patchOp({ op: 'add', path: 'members', value: [{ value: theirs }] })),
      400,
      'invalidValue',
    );

    const cases: [unknown, string][] = [
      [patchOp({ op: 'replace', path: 'favouriteColour', value: 'red' }), 'invalidPath'],
      [patchOp({ op: 'replace', path: 'emails[type eq "work"', value: 'x' }), 'invalidPath'],
      [patchOp({ op: 'remove' }), 'noTarget'],
      [patchOp({ op: 'replace', path: 'emails[type eq "home"]', value: { value: 'h@example.com' } }), 'noTarget'],
      [patchOp({ op: 'replace', path: 'id', value: randomUUID() }), 'mutability'],
      [patchOp({ op: 'replace', path: 'active', value: 'nope' }), 'invalidValue'],
      [patchOp({ op: 'frobnicate', path: 'active', value: true }), 'invalidSyntax'],
      [patchOp(), 'invalidValue'],
      ['{"Operations": [', 'invalidSyntax'],
    ];
    for (const [body, scimType] of cases) expectScimError(await okta.patch(`/Users/${id}`, body), 400, scimType);
    expectScimError(await okta.post('/Users', { name: { givenName: 'x' } }), 400, 'invalidValue');
    expectScimError(await okta.post('/Users', '[1, 2]'), 400, 'invalidSyntax');
    expectScimError(await okta.post('/Groups', { displayName: '' }), 400, 'invalidValue');
    expect((await okta.get(`/Users/${id}`).expect(200)).body.active).toBe(true);
    expect((await auditOf(id)).map((e: { action: string }) => e.action)).toEqual(['scim_user.created']);
  });
});
