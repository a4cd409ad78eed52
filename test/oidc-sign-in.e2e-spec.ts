import { createProject } from './support/factories';
import { fromAddress, OidcWorld, sessionPair, startOidcWorld, tag } from './support/oidc-world';
import { TEST_ADMIN_KEY } from './support/test-app';

/**
 * Sign-in with OpenID Connect (docs/security.md, "Sign-in") against a real provider on loopback
 * (test/harness/oidc-provider.ts): the code flow driven over HTTP as a browser would, then the
 * session, the user's rows, their group's role and the instance's trail. The refusals are
 * oidc-sign-in-refusals.e2e-spec.ts's.
 */
describe('sign-in with OpenID Connect', () => {
  let w: OidcWorld;

  beforeAll(async () => {
    w = await startOidcWorld({ OIDC_ALLOWED_DOMAINS: 'example.com, example.org', PARLEY_INSTANCE_ADMINS: 'root-oidc-e2e@example.com' });
  });
  afterAll(() => w?.close());

  it('signs a person in through the provider: the session cookie, the user, their groups and the trail', async () => {
    const { login, email } = w.account({ groups: [w.viewers, 'staff'] });
    const headers = fromAddress();
    const { round, res } = await w.signIn(login, headers, { returnTo: '/console/prompts?view=all' });
    expect(round.callback).toMatch(/^\/v2\/console\/oidc\/callback\?code=[^&]+&state=[^&]+&iss=/);
    expect([res.status, res.headers.location]).toEqual([302, '/console/prompts?view=all']);
    const cookie = (res.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('parley_session='))!;
    expect(cookie.split(';').map((a) => a.trim())).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Strict', 'Path=/']));
    expect(res.headers['cache-control']).toBe('no-store');
    const session = sessionPair(res.headers['set-cookie'])!;

    const me = await w.t.http().get('/v2/console/session').set('Cookie', session).expect(200);
    const [user] = await w.t.dataSource.query(
      'SELECT id, email, name, oidc_issuer, oidc_subject, instance_admin, active, last_sign_in_at FROM users WHERE email = $1',
      [email],
    );
    expect(user).toEqual({
      id: expect.any(String),
      email,
      name: `Person ${login}`,
      oidc_issuer: w.provider.issuer,
      oidc_subject: login,
      instance_admin: false,
      active: true,
      last_sign_in_at: expect.any(Date),
    });
    expect(me.body).toEqual({
      object: 'console.session',
      kind: 'user',
      workspace: null,
      project: null,
      scopes: [],
      environments: null,
      expiresAt: expect.any(String),
      user: { id: user.id, email, name: `Person ${login}` },
      instanceAdmin: false,
      role: null,
      memberships: [{ workspace: w.p.workspace, project: w.p.project, role: 'viewer' }],
      projects: [{ workspace: w.p.workspace, project: w.p.project, role: 'viewer' }],
    });
    const groups = await w.t.dataSource.query('SELECT name FROM user_claim_groups WHERE user_id = $1 ORDER BY name', [user.id]);
    expect(groups.map((g: { name: string }) => g.name).sort()).toEqual(['staff', w.viewers].sort());
    const client = headers['X-Forwarded-For'];
    expect(await w.auditRows('sign_in.succeeded', client)).toEqual([
      {
        actor_kind: 'user',
        actor_user_id: user.id,
        actor_user_email: email,
        resource_type: 'sign_in',
        resource_id: user.id,
        after: { method: 'oidc', issuer: w.provider.issuer, email },
        client_address: client,
      },
    ]);
    const created = await w.t.dataSource.query(
      `SELECT actor_user_id FROM instance_audit_events WHERE action = 'user.created' AND resource_id = $1`,
      [user.id],
    );
    expect(created).toEqual([{ actor_user_id: user.id }]);
  });

  it("a group's role lets the person read in its project and refuses what the role lacks", async () => {
    const { login } = w.account({ groups: [w.viewers] });
    const { res } = await w.signIn(login, fromAddress());
    const session = sessionPair(res.headers['set-cookie'])!;
    const inProject = { Cookie: session, 'X-Parley-Project': `${w.p.workspace}/${w.p.project}` };

    const me = await w.t.http().get('/v2/console/session').set(inProject).expect(200);
    expect(me.body).toMatchObject({ kind: 'user', workspace: w.p.workspace, project: w.p.project, role: 'viewer' });
    expect(me.body.scopes).toContain('registry:read');
    expect(me.body.scopes).not.toContain('registry:write');
    await w.t.http().get('/v2/prompts').set(inProject).expect(200);
    const refused = await w.t
      .http()
      .post('/v2/prompts')
      .set({ ...inProject, 'X-Parley-CSRF': '1' })
      .send({ slug: `p-${tag()}`, template: [{ role: 'user', content: 'hi' }] })
      .expect(403);
    expect(refused.body).toEqual({ error: 'Forbidden', message: 'Your role here lacks the scope this endpoint needs: registry:write' });
    // Without a project chosen, a project route says so; a project they have no role in is not found.
    const unchosen = await w.t.http().get('/v2/prompts').set('Cookie', session).expect(403);
    expect(unchosen.body.message).toMatch(/^Choose a project/);
    const other = await createProject(w.t);
    await w.t
      .http()
      .get('/v2/prompts')
      .set({ Cookie: session, 'X-Parley-Project': `${other.workspace}/${other.project}` })
      .expect(404);
    // "Who am I" naming a project they have no role in answers without one.
    const elsewhere = await w.t
      .http()
      .get('/v2/console/session')
      .set({ Cookie: session, 'X-Parley-Project': `${other.workspace}/${other.project}` });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body).toMatchObject({ kind: 'user', workspace: null, project: null, role: null, scopes: [] });
  });

  it('signs out a person: the session ends', async () => {
    const { login } = w.account({ groups: [w.viewers] });
    const { res } = await w.signIn(login, fromAddress());
    const session = sessionPair(res.headers['set-cookie'])!;
    const out = await w.t.http().delete('/v2/console/session').set({ Cookie: session, 'X-Parley-CSRF': '1' }).expect(200);
    expect(out.body).toEqual({ object: 'console.session.ended', ended: true });
    await w.t.http().get('/v2/console/session').set('Cookie', session).expect(401);
  });

  it('links a user the instance knew by e-mail, keeping their membership, and makes the listed e-mail an instance admin', async () => {
    const login = `root-${tag()}`;
    const email = 'root-oidc-e2e@example.com';
    w.provider.accounts.set(login, { email: email.toUpperCase(), email_verified: true, name: 'Root' });
    const existing = await w.t.dataSource.query('SELECT id FROM users WHERE lower(email) = $1', [email]);
    const userId: string =
      existing[0]?.id ??
      (
        await w.t.dataSource.query(
          `INSERT INTO users (id, email, name, instance_admin, active, created_at) VALUES (gen_random_uuid(), $1, NULL, false, true, now()) RETURNING id`,
          [email],
        )
      )[0].id;
    const { res } = await w.signIn(login, fromAddress());
    const session = sessionPair(res.headers['set-cookie'])!;
    const [user] = await w.t.dataSource.query('SELECT id, oidc_subject, instance_admin FROM users WHERE id = $1', [userId]);
    expect(user).toEqual({ id: userId, oidc_subject: login, instance_admin: true });
    const me = await w.t.http().get('/v2/console/session').set('Cookie', session).expect(200);
    expect(me.body).toMatchObject({ kind: 'user', instanceAdmin: true, scopes: null, projects: [] });
    await w.t.http().get('/v2/workspaces').set('Cookie', session).expect(200);
    const granted = await w.t.dataSource.query(
      `SELECT after FROM instance_audit_events WHERE action = 'user.instance_admin_granted' AND resource_id = $1`,
      [userId],
    );
    expect(granted).toEqual([{ after: { instanceAdmin: true } }]);
  });

  it('lands only on a path of the console: another returnTo is ignored', async () => {
    const { login } = w.account({ groups: [w.viewers] });
    for (const returnTo of ['https://evil.example/console', '//evil.example/console', '/v2/workspaces', '/console\\@evil']) {
      const { res } = await w.signIn(login, fromAddress(), { returnTo });
      expect([returnTo, res.headers.location]).toEqual([returnTo, '/console']);
    }
  });

  it('tells the sign-in screen how one may sign in; both ways are on', async () => {
    const res = await w.t.http().get('/v2/console/sign-in-options').expect(200);
    expect(res.body).toEqual({ object: 'console.sign_in_options', oidc: true, keys: true });
    await w.t.http().post('/v2/console/session').send({ key: w.p.key }).expect(200);
  });
});

describe('PARLEY_KEY_SIGN_IN=off', () => {
  let w: OidcWorld;

  beforeAll(async () => {
    // Set by the suite above (createTestApp keeps what it is given in process.env).
    delete process.env.OIDC_ALLOWED_DOMAINS;
    delete process.env.PARLEY_INSTANCE_ADMINS;
    w = await startOidcWorld({ OIDC_PROVIDER_NAME: 'Example SSO', PARLEY_KEY_SIGN_IN: 'off' });
  });
  afterAll(() => w?.close());

  it('refuses a key at console sign-in with a clear 403; keys keep working for the API, and people sign in', async () => {
    const refused = await w.t.http().post('/v2/console/session').send({ key: w.p.key }).expect(403);
    expect(refused.body).toEqual({
      error: 'Forbidden',
      message: 'Signing in to the console with a key is turned off on this server (PARLEY_KEY_SIGN_IN=off): sign in with single sign-on',
    });
    expect(refused.headers['set-cookie']).toBeUndefined();
    await w.t.http().post('/v2/console/session').send({ key: TEST_ADMIN_KEY }).expect(403);
    await w.t.http().get('/v2/prompts').set('X-API-Key', w.p.key).expect(200);
    const options = await w.t.http().get('/v2/console/sign-in-options').expect(200);
    expect(options.body).toEqual({ object: 'console.sign_in_options', oidc: true, keys: false, providerName: 'Example SSO' });
    const { login } = w.account({ groups: [w.viewers] }, 'anywhere.example');
    const { res } = await w.signIn(login, fromAddress());
    expect(sessionPair(res.headers['set-cookie'])).not.toBeNull();
  });
});
