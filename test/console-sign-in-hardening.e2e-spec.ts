import { createHash } from 'node:crypto';

import { createProject, TestProject } from './support/factories';
import { createTestApp, TestApp } from './support/test-app';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The session token a sign-in answered with, or null when it set no session cookie. */
function sessionToken(setCookie: string[] | string | undefined): string | null {
  const cookies = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  const cookie = cookies.find((c) => c.startsWith('parley_session='));
  return cookie ? cookie.split(';')[0].slice('parley_session='.length) : null;
}

/**
 * Console sign-in against login CSRF, guessing and fixation (docs/security.md, "Console sign-in"):
 * JSON only, same origin only, failed attempts throttled per client address and per key prefix,
 * and a new sign-in revokes the session the browser already had.
 */
describe('console sign-in hardening', () => {
  let t: TestApp;
  let p: TestProject;

  beforeAll(async () => {
    t = await createTestApp();
    p = await createProject(t);
  });
  afterAll(() => t.close());

  const sessionsOf = async (keyId: string): Promise<number> =>
    (await t.dataSource.query('SELECT count(*)::int AS n FROM console_sessions WHERE key_id = $1', [keyId]))[0].n;
  const signIn = (key: string, headers: Record<string, string> = {}) => t.http().post('/v2/console/session').set(headers).send({ key });
  /** A wrong key with a prefix of its own (the per-key throttle counts by the first 10 characters). */
  const wrongKey = (tag: string) => `pk_${sha256(tag).slice(0, 7)}${'x'.repeat(25)}`;

  it('refuses a body that is not sent as application/json, before the key is looked at, and sets no cookie', async () => {
    const before = await sessionsOf(p.keyId);
    // What an HTML form with enctype="text/plain" can make a browser send to another site: valid JSON.
    const plain = await t
      .http()
      .post('/v2/console/session')
      .set('Content-Type', 'text/plain')
      .send(JSON.stringify({ key: p.key }));
    expect(plain.status).toBe(415);
    expect(plain.body).toEqual({ error: { message: expect.stringContaining('application/json') } });
    expect(sessionToken(plain.headers['set-cookie'])).toBeNull();

    const form = await t.http().post('/v2/console/session').type('form').send({ key: p.key });
    expect(form.status).toBe(415);
    expect(sessionToken(form.headers['set-cookie'])).toBeNull();
    const multipart = await t.http().post('/v2/console/session').field('key', p.key);
    expect(multipart.status).toBe(415);
    expect(sessionToken(multipart.headers['set-cookie'])).toBeNull();
    expect(await sessionsOf(p.keyId)).toBe(before);

    // JSON with a charset parameter is JSON.
    const json = await t
      .http()
      .post('/v2/console/session')
      .set('Content-Type', 'application/json; charset=utf-8')
      .send(JSON.stringify({ key: p.key }));
    expect(json.status).toBe(200);
    expect(sessionToken(json.headers['set-cookie'])).not.toBeNull();
    expect(await sessionsOf(p.keyId)).toBe(before + 1);
  });

  it("refuses another site's request: a foreign Origin, an opaque one, or Sec-Fetch-Site: cross-site", async () => {
    const before = await sessionsOf(p.keyId);
    const refused: Array<Record<string, string>> = [
      { Host: 'parley.example', Origin: 'https://attacker.example' },
      { Host: 'parley.example:8080', Origin: 'http://parley.example:8081' },
      { Host: 'parley.example', Origin: 'null' },
      { Host: 'parley.example', 'Sec-Fetch-Site': 'cross-site' },
    ];
    for (const headers of refused) {
      const res = await signIn(p.key, headers);
      expect({ headers, status: res.status }).toEqual({ headers, status: 403 });
      expect(res.body).toEqual({ error: 'Forbidden', message: expect.stringContaining('another site') });
      expect(sessionToken(res.headers['set-cookie'])).toBeNull();
    }
    expect(await sessionsOf(p.keyId)).toBe(before);
  });

  it('accepts its own origin (also through a trusted proxy), and no Origin at all (curl, scripts)', async () => {
    const accepted: Array<Record<string, string>> = [
      {},
      { Host: 'parley.example:8080', Origin: 'http://parley.example:8080', 'Sec-Fetch-Site': 'same-origin' },
      { Host: 'parley.example:443', Origin: 'https://parley.example' },
      { Host: '10.0.0.5:3000', 'X-Forwarded-Host': 'parley.example', Origin: 'https://parley.example' },
    ];
    for (const headers of accepted) {
      const res = await signIn(p.key, headers);
      expect({ headers, status: res.status }).toEqual({ headers, status: 200 });
      expect(sessionToken(res.headers['set-cookie'])).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
  });

  it('sign-out with the cookie refuses another origin too, and the session stays live', async () => {
    const token = sessionToken((await signIn(p.key).expect(200)).headers['set-cookie'])!;
    const cookie = `parley_session=${token}`;
    const refused = await t
      .http()
      .delete('/v2/console/session')
      .set({ Cookie: cookie, 'X-Parley-CSRF': '1', Host: 'parley.example', Origin: 'https://attacker.example' });
    expect(refused.status).toBe(403);
    await t.http().get('/v2/console/session').set('Cookie', cookie).expect(200);
    const out = await t
      .http()
      .delete('/v2/console/session')
      .set({ Cookie: cookie, 'X-Parley-CSRF': '1', Host: 'parley.example', Origin: 'http://parley.example' });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ object: 'console.session.ended', ended: true });
    await t.http().get('/v2/console/session').set('Cookie', cookie).expect(401);
  });

  it('the 11th failed sign-in from one address in a minute is a 429 with Retry-After; another address still signs in', async () => {
    const attacker = { 'X-Forwarded-For': '203.0.113.7' };
    for (let i = 0; i < 10; i++) {
      const res = await signIn(wrongKey(`address-${i}`), attacker);
      expect({ attempt: i + 1, status: res.status }).toEqual({ attempt: i + 1, status: 401 });
    }
    const before = await sessionsOf(p.keyId);
    const throttled = await signIn(wrongKey('address-10'), attacker);
    expect(throttled.status).toBe(429);
    expect(throttled.body).toEqual({ error: { message: expect.stringContaining('Too many failed sign-ins') } });
    const retryAfter = Number(throttled.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Refused before the key is looked at, so even a right key from that address waits.
    const rightKey = await signIn(p.key, attacker);
    expect(rightKey.status).toBe(429);
    expect(sessionToken(rightKey.headers['set-cookie'])).toBeNull();
    expect(await sessionsOf(p.keyId)).toBe(before);

    const elsewhere = await signIn(p.key, { 'X-Forwarded-For': '198.51.100.20' });
    expect(elsewhere.status).toBe(200);
    expect(sessionToken(elsewhere.headers['set-cookie'])).not.toBeNull();
    expect(await sessionsOf(p.keyId)).toBe(before + 1);
  });

  it('failures against one key prefix from many addresses are throttled too; other keys are not', async () => {
    const target = await createProject(t);
    const guess = (i: number) => `${target.key.slice(0, 10)}${sha256(`guess-${i}`).slice(0, 22)}`;
    for (let i = 0; i < 10; i++) {
      const res = await signIn(guess(i), { 'X-Forwarded-For': `192.0.2.${i + 1}` });
      expect({ attempt: i + 1, status: res.status }).toEqual({ attempt: i + 1, status: 401 });
    }
    const throttled = await signIn(guess(10), { 'X-Forwarded-For': '192.0.2.100' });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await signIn(p.key, { 'X-Forwarded-For': '192.0.2.100' }).expect(200);
  });

  it('a successful sign-in is not a failure and does not reset the count', async () => {
    const client = { 'X-Forwarded-For': '2001:db8::77' };
    for (let i = 0; i < 9; i++) await signIn(wrongKey(`mixed-${i}`), client).expect(401);
    for (let i = 0; i < 5; i++) await signIn(p.key, client).expect(200);
    await signIn(wrongKey('mixed-9'), client).expect(401);
    await signIn(wrongKey('mixed-10'), client).expect(429);
  });

  it('signing in again revokes the session the request carried: the old cookie is refused, the new one works', async () => {
    const first = sessionToken((await signIn(p.key).expect(200)).headers['set-cookie'])!;
    await t.http().get('/v2/console/session').set('Cookie', `parley_session=${first}`).expect(200);

    // A failed sign-in changes nothing.
    await signIn(wrongKey('rotation'), { Cookie: `parley_session=${first}` }).expect(401);
    await t.http().get('/v2/console/session').set('Cookie', `parley_session=${first}`).expect(200);

    const again = await signIn(p.key, { Cookie: `parley_session=${first}` }).expect(200);
    const second = sessionToken(again.headers['set-cookie'])!;
    expect(second).not.toBe(first);
    const old = await t.http().get('/v2/console/session').set('Cookie', `parley_session=${first}`);
    expect(old.status).toBe(401);
    expect(old.body).toEqual({ error: 'Unauthorized', message: 'Invalid API key' });
    const current = await t.http().get('/v2/console/session').set('Cookie', `parley_session=${second}`).expect(200);
    expect(current.body).toMatchObject({ kind: 'project', project: p.project });

    const rows: Array<{ token_hash: string; revoked: boolean }> = await t.dataSource.query(
      'SELECT token_hash, revoked_at IS NOT NULL AS revoked FROM console_sessions WHERE token_hash = ANY($1::text[]) ORDER BY created_at',
      [[sha256(first), sha256(second)]],
    );
    expect(rows.map((row) => [row.token_hash, row.revoked]).sort()).toEqual(
      [
        [sha256(first), true],
        [sha256(second), false],
      ].sort(),
    );
  });
});
