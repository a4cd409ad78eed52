import { createHash } from 'node:crypto';

import { createProject, createThread, TestProject } from './support/factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The session cookie a sign-in answered with: its `name=value` and its attributes. */
function sessionCookie(setCookie: string[] | string | undefined): { pair: string; token: string; attributes: string[] } {
  const cookies = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  const cookie = cookies.find((c) => c.startsWith('parley_session='));
  if (!cookie) throw new Error(`no parley_session cookie in ${JSON.stringify(setCookie)}`);
  const [pair, ...attributes] = cookie.split(';').map((part) => part.trim());
  return { pair, token: pair.slice('parley_session='.length), attributes };
}

/** Console sessions (docs/console.md, "Sessions"): a key exchanged for an HttpOnly cookie that the one guard accepts. */
describe('console sessions', () => {
  let t: TestApp;
  let p: TestProject;
  let other: TestProject;

  beforeAll(async () => {
    t = await createTestApp();
    p = await createProject(t);
    other = await createProject(t);
  });
  afterAll(() => t.close());

  const signIn = async (key: string, headers: Record<string, string> = {}) => {
    const res = await t.http().post('/v2/console/session').set(headers).send({ key }).expect(200);
    return { body: res.body, ...sessionCookie(res.headers['set-cookie']) };
  };

  it('the application leads GET / to the console, with no key (a browser opening the printed address)', async () => {
    const res = await t.http().get('/').expect(302);
    expect(res.headers.location).toBe('/console');
    expect(res.headers['x-request-id']).toBeDefined();
  });

  it('without an identity provider, offers key sign-in only, and single sign-on says it is not configured', async () => {
    const options = await t.http().get('/v2/console/sign-in-options').expect(200);
    expect(options.body).toEqual({ object: 'console.sign_in_options', oidc: false, keys: true });
    for (const route of ['/v2/console/oidc/login', '/v2/console/oidc/callback?code=c&state=s']) {
      const res = await t.http().get(route).expect(302);
      expect(res.headers.location).toBe('/console/sign-in?signInError=sso_not_configured');
      expect(String(res.headers['set-cookie'] ?? '')).not.toContain('parley_session');
    }
  });

  it('exchanges a project key for an HttpOnly, SameSite=Strict cookie stored only as a hash', async () => {
    const session = await signIn(p.key);
    expect(session.body).toEqual({
      object: 'console.session',
      kind: 'project',
      workspace: p.workspace,
      project: p.project,
      scopes: null,
      environments: null,
      expiresAt: expect.any(String),
    });
    expect(session.attributes).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Strict', 'Path=/']));
    expect(session.attributes).not.toContain('Secure');
    expect(session.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rows = await t.dataSource.query('SELECT token_hash, kind, key_id, project_id FROM console_sessions WHERE token_hash = $1', [
      sha256(session.token),
    ]);
    expect(rows).toEqual([{ token_hash: sha256(session.token), kind: 'project', key_id: p.keyId, project_id: p.projectId }]);
    const stored = await t.dataSource.query('SELECT count(*)::int AS n FROM console_sessions WHERE token_hash = $1 OR token_hash = $2', [
      session.token,
      p.key,
    ]);
    expect(stored[0].n).toBe(0);

    const me = await t.http().get('/v2/console/session').set('Cookie', session.pair).expect(200);
    expect(me.body).toEqual(session.body);
  });

  it('marks the cookie Secure when the request came over https through a trusted proxy', async () => {
    const session = await signIn(p.key, { 'X-Forwarded-Proto': 'https' });
    expect(session.attributes).toContain('Secure');
  });

  it('refuses a wrong or missing key', async () => {
    const wrong = await t
      .http()
      .post('/v2/console/session')
      .send({ key: `${p.key}x` })
      .expect(401);
    expect(wrong.body).toEqual({ error: 'Unauthorized', message: 'Invalid API key' });
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const missing = await t.http().post('/v2/console/session').send({}).expect(400);
    expect(missing.body.error.message).toBe('Invalid request body');
  });

  it('acts as the key: its project only, and a change needs the CSRF header', async () => {
    const { pair } = await signIn(p.key);
    const mine = await createThread(t, p, { metadata: { via: 'key' } });
    const theirs = await createThread(t, other);
    const listed = await t.http().get('/v2/threads?limit=100').set('Cookie', pair).expect(200);
    expect(listed.body.data.map((thread: { id: string }) => thread.id)).toContain(mine.id);
    await t.http().get(`/v2/threads/${theirs.id}`).set('Cookie', pair).expect(404);

    const refused = await t.http().post('/v2/threads').set('Cookie', pair).send({}).expect(403);
    expect(refused.body).toEqual({
      error: 'Forbidden',
      message: 'A console request that changes something needs the x-parley-csrf header',
    });
    const created = await t
      .http()
      .post('/v2/threads')
      .set('Cookie', pair)
      .set('X-Parley-CSRF', '1')
      .send({ metadata: { via: 'console' } })
      .expect(200);
    expect(created.body.projectId).toBe(p.projectId);
    await t.http().delete(`/v2/threads/${theirs.id}`).set('Cookie', pair).set('X-Parley-CSRF', '1').expect(404);

    // A project session is not the admin key.
    await t.http().get('/v2/workspaces').set('Cookie', pair).expect(403);
  });

  it('the admin key makes an admin session', async () => {
    const session = await signIn(TEST_ADMIN_KEY);
    expect(session.body).toMatchObject({ kind: 'admin', workspace: null, project: null });
    const workspaces = await t.http().get('/v2/workspaces').set('Cookie', session.pair).expect(200);
    expect(workspaces.body.data.map((w: { slug: string }) => w.slug)).toContain(p.workspace);
  });

  it('sign-out revokes the session: the cookie is refused afterwards', async () => {
    const { pair } = await signIn(p.key);
    await t.http().get('/v2/threads').set('Cookie', pair).expect(200);
    await t.http().delete('/v2/console/session').set('Cookie', pair).expect(403);
    const out = await t.http().delete('/v2/console/session').set('Cookie', pair).set('X-Parley-CSRF', '1').expect(200);
    expect(out.body).toEqual({ object: 'console.session.ended', ended: true });
    expect(sessionCookie(out.headers['set-cookie']).token).toBe('');
    const after = await t.http().get('/v2/threads').set('Cookie', pair).expect(401);
    expect(after.body).toEqual({ error: 'Unauthorized', message: 'Invalid API key' });
  });

  it('ends with its key, and when it expires', async () => {
    const own = await createProject(t);
    const { pair } = await signIn(own.key);
    await t
      .http()
      .delete(`/v2/workspaces/${own.workspace}/projects/${own.project}/api-keys/${own.keyId}`)
      .set('X-API-Key', TEST_ADMIN_KEY)
      .expect(200);
    await t.http().get('/v2/threads').set('Cookie', pair).expect(401);

    const expiring = await signIn(p.key);
    await t.http().get('/v2/threads').set('Cookie', expiring.pair).expect(200);
    await t.dataSource.query(`UPDATE console_sessions SET expires_at = now() - interval '1 second' WHERE token_hash = $1`, [
      sha256(expiring.token),
    ]);
    await t.http().get('/v2/threads').set('Cookie', expiring.pair).expect(401);
  });

  it('a key header wins over a cookie, and an unknown cookie is a 401', async () => {
    const { pair } = await signIn(p.key);
    const mine = await createThread(t, other);
    await t.http().get(`/v2/threads/${mine.id}`).set('Cookie', pair).set('X-API-Key', other.key).expect(200);
    await t.http().get('/v2/threads').set('Cookie', 'parley_session=not-a-session').expect(401);
  });
});
