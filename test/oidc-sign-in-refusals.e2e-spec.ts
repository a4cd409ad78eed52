import { CookieJar, openCallback, ProviderRound, throughProvider } from './support/oidc-flow';
import { expectRefused, fromAddress, OidcWorld, PUBLIC_URL, startOidcWorld, tag } from './support/oidc-world';

/**
 * Each way a sign-in with OpenID Connect is refused (docs/security.md, "Sign-in"), against a real
 * provider on loopback: the browser is sent to the sign-in screen with the reason's code, no
 * session is made, and the instance's trail keeps the reason.
 */
describe('sign-in with OpenID Connect refuses, and makes no session', () => {
  let w: OidcWorld;

  beforeAll(async () => {
    w = await startOidcWorld({ OIDC_ALLOWED_DOMAINS: 'example.com, example.org' });
  });
  afterAll(() => w?.close());

  const sessionsOf = async (email: string): Promise<number> =>
    (
      await w.t.dataSource.query(
        'SELECT count(*)::int AS n FROM console_sessions s JOIN users u ON u.id = s.user_id WHERE lower(u.email) = lower($1)',
        [email],
      )
    )[0].n;
  const failure = async (client: string): Promise<any[]> => (await w.auditRows('sign_in.failed', client)).map((row) => row.after);

  it('a wrong state', async () => {
    const { login, email } = w.account({ groups: [w.viewers] });
    const headers = fromAddress();
    const round = await throughProvider(w.t, PUBLIC_URL, { login, headers });
    const forged = round.callback.replace(/state=[^&]+/, 'state=forged-state-value');
    expectRefused(await openCallback(w.t, round, headers, forged), 'state_mismatch');
    expect(await sessionsOf(email)).toBe(0);
    expect(await failure(headers['X-Forwarded-For'])).toEqual([{ method: 'oidc', reason: 'state_mismatch' }]);
  });

  it('a callback opened in another browser (no sign-in started there)', async () => {
    const { login, email } = w.account({ groups: [w.viewers] });
    const headers = fromAddress();
    const round = await throughProvider(w.t, PUBLIC_URL, { login, headers });
    expectRefused(await openCallback(w.t, { ...round, parley: new CookieJar() }, headers), 'sign_in_expired');
    expect(await sessionsOf(email)).toBe(0);
  });

  it('a replayed code: the same callback twice, the flow cookie kept', async () => {
    const { login, email } = w.account({ groups: [w.viewers] });
    const headers = fromAddress();
    const round = await throughProvider(w.t, PUBLIC_URL, { login, headers });
    const flow = round.parley.header();
    const first = await openCallback(w.t, round, headers);
    expect(first.headers.location).toBe('/console');
    expect(await sessionsOf(email)).toBe(1);
    const replay: ProviderRound = { ...round, parley: new CookieJar() };
    replay.parley.take(flow);
    expectRefused(await openCallback(w.t, replay, headers), 'token_rejected');
    expect(await sessionsOf(email)).toBe(1);
    expect(await failure(headers['X-Forwarded-For'])).toEqual([
      { method: 'oidc', reason: 'token_rejected', detail: 'token endpoint: invalid_grant' },
    ]);
  });

  it('an ID token for another audience', async () => {
    const { login, email } = w.account({ groups: [w.viewers] });
    const headers = fromAddress();
    w.provider.tamperIdToken = (claims) => ({ ...claims, aud: 'another-client' });
    try {
      expectRefused((await w.signIn(login, headers)).res, 'token_rejected');
    } finally {
      w.provider.tamperIdToken = null;
    }
    expect(await sessionsOf(email)).toBe(0);
    const [after] = await failure(headers['X-Forwarded-For']);
    expect(after).toEqual({ method: 'oidc', reason: 'token_rejected', detail: expect.stringMatching(/"aud" \(audience\)/) });
  });

  it('an ID token not signed by the provider', async () => {
    const { login, email } = w.account({ groups: [w.viewers] });
    const headers = fromAddress();
    w.provider.tamperIdToken = (claims) => ({ ...claims, email: `admin-${tag()}@example.com` });
    w.provider.tamperSigner = 'stranger';
    try {
      expectRefused((await w.signIn(login, headers)).res, 'token_rejected');
    } finally {
      w.provider.tamperIdToken = null;
      w.provider.tamperSigner = 'provider';
    }
    expect(await sessionsOf(email)).toBe(0);
    const [after] = await failure(headers['X-Forwarded-For']);
    expect(after).toEqual({ method: 'oidc', reason: 'token_rejected', detail: expect.stringMatching(/signature/i) });
  });

  it('an expired ID token', async () => {
    const { login, email } = w.account({ groups: [w.viewers] });
    const headers = fromAddress();
    w.provider.idTokenTtlSeconds = -3600;
    try {
      expectRefused((await w.signIn(login, headers)).res, 'token_rejected');
    } finally {
      w.provider.idTokenTtlSeconds = 600;
    }
    expect(await sessionsOf(email)).toBe(0);
    const [after] = await failure(headers['X-Forwarded-For']);
    expect(after).toEqual({ method: 'oidc', reason: 'token_rejected', detail: expect.stringMatching(/"exp" \(expiration time\)/) });
  });

  it('an e-mail outside OIDC_ALLOWED_DOMAINS, and an unverified one', async () => {
    const outside = w.account({ groups: [w.viewers] }, 'example.net');
    const headers = fromAddress();
    expectRefused((await w.signIn(outside.login, headers)).res, 'domain_not_allowed');
    const unverified = w.account({ groups: [w.viewers], email_verified: false });
    expectRefused((await w.signIn(unverified.login, headers)).res, 'email_unverified');
    expect(await failure(headers['X-Forwarded-For'])).toEqual([
      { method: 'oidc', reason: 'domain_not_allowed', detail: 'example.net', email: outside.email },
      { method: 'oidc', reason: 'email_unverified', email: unverified.email },
    ]);
    expect(await w.t.dataSource.query('SELECT id FROM users WHERE email = ANY($1)', [[outside.email, unverified.email]])).toEqual([]);
  });

  it('a deactivated user, and a person with no role anywhere', async () => {
    const { login, email } = w.account({ groups: [w.viewers] });
    expect((await w.signIn(login, fromAddress())).res.headers.location).toBe('/console');
    await w.t.dataSource.query('UPDATE users SET active = false WHERE email = $1', [email]);
    await w.t.dataSource.query('DELETE FROM console_sessions WHERE user_id = (SELECT id FROM users WHERE email = $1)', [email]);
    const headers = fromAddress();
    expectRefused((await w.signIn(login, headers)).res, 'user_inactive');
    expect(await sessionsOf(email)).toBe(0);

    const nobody = w.account({ groups: ['no-such-group'] });
    expectRefused((await w.signIn(nobody.login, headers)).res, 'no_role');
    expect(await sessionsOf(nobody.email)).toBe(0);
    expect((await failure(headers['X-Forwarded-For'])).map((a: { reason: string }) => a.reason)).toEqual(['user_inactive', 'no_role']);
  });

  it("the provider's error (the person cancelled)", async () => {
    const headers = fromAddress();
    const round = await throughProvider(w.t, PUBLIC_URL, { login: 'unused', headers, cancel: true });
    expect(round.callback).toMatch(/error=access_denied/);
    expectRefused(await openCallback(w.t, round, headers), 'provider_denied');
    expect(await failure(headers['X-Forwarded-For'])).toEqual([{ method: 'oidc', reason: 'provider_denied', detail: 'access_denied' }]);
  });

  it('too many failures from one address: throttled, with no look at the answer', async () => {
    const headers = fromAddress();
    for (let i = 0; i < 10; i++) {
      expectRefused(await w.t.http().get('/v2/console/oidc/callback?code=guess&state=guess').set(headers), 'sign_in_expired');
    }
    const { login, email } = w.account({ groups: [w.viewers] });
    expectRefused((await w.signIn(login, headers)).res, 'throttled');
    expect(await sessionsOf(email)).toBe(0);
    // Callbacks with no flow cookie began no sign-in here: throttled, but not written to the trail.
    expect(await failure(headers['X-Forwarded-For'])).toHaveLength(0);
    // Another address is not held back.
    expect((await w.signIn(login, fromAddress())).res.headers.location).toBe('/console');
  });
});
