import { randomBytes } from 'node:crypto';

import { startOidcProvider, TestOidcProvider } from '../harness/oidc-provider';
import { createProject, TestProject } from './factories';
import { openCallback, throughProvider } from './oidc-flow';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './test-app';

export const PUBLIC_URL = 'http://parley.test';
export const CLIENT = {
  clientId: 'parley-console',
  clientSecret: 'parley-console-secret-0123456789',
  redirectUris: [`${PUBLIC_URL}/v2/console/oidc/callback`],
};
export const tag = () => randomBytes(4).toString('hex');

let addresses = 0;
/** An address of its own per call (as X-Forwarded-For, from loopback, a trusted proxy): the sign-in throttle counts failures per address. */
export const fromAddress = () => {
  addresses++;
  return { 'X-Forwarded-For': `203.0.${Math.floor(addresses / 250) % 256}.${(addresses % 250) + 1}` };
};

/** The session cookie a response set, as `name=value`; null when it set none. */
export function sessionPair(setCookie: string[] | string | undefined): string | null {
  const cookies = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  const cookie = cookies.find((c) => c.startsWith('parley_session=') && !c.startsWith('parley_session=;'));
  return cookie ? cookie.split(';')[0] : null;
}

/** A refusal as the browser sees it: a redirect to the sign-in screen with the code, no session cookie, and the flow cookie cleared. */
export function expectRefused(res: { status: number; headers: Record<string, any> }, error: string): void {
  expect([res.status, res.headers.location]).toEqual([302, `/console/sign-in?signInError=${error}`]);
  expect(sessionPair(res.headers['set-cookie'])).toBeNull();
  expect(res.headers['set-cookie']).toEqual(expect.arrayContaining([expect.stringMatching(/^parley_oidc=;.*Path=\/v2\/console\/oidc/)]));
}

export interface OidcWorld {
  provider: TestOidcProvider;
  t: TestApp;
  /** A project whose viewers are the provider's group `viewers` (a group role). */
  p: TestProject;
  viewers: string;
  /** An account at the provider, with an e-mail of its own in `domain`. */
  account(claims?: { groups?: unknown; email_verified?: boolean; name?: string }, domain?: string): { login: string; email: string };
  /** Signs in through the provider and opens the callback; the callback's answer. */
  signIn(
    login: string,
    headers: Record<string, string>,
    options?: { returnTo?: string },
  ): Promise<{ round: Awaited<ReturnType<typeof throughProvider>>; res: Awaited<ReturnType<typeof openCallback>> }>;
  /** The instance's trail rows of one action from one client address. */
  auditRows(action: string, client: string): Promise<any[]>;
  close(): Promise<void>;
}

/**
 * A real OpenID provider on loopback (test/harness/oidc-provider.ts) and the application signing
 * in with it (PUBLIC_URL http://parley.test: the tests follow its redirects by hand), with a project
 * whose viewer role a group of the provider holds.
 */
export async function startOidcWorld(env: Record<string, string> = {}): Promise<OidcWorld> {
  const provider = await startOidcProvider({ clients: [CLIENT] });
  const t = await createTestApp({
    OIDC_ISSUER: provider.issuer,
    OIDC_CLIENT_ID: CLIENT.clientId,
    OIDC_CLIENT_SECRET: CLIENT.clientSecret,
    PUBLIC_URL,
    OIDC_SCOPES: 'openid email profile groups',
    ...env,
  });
  const p = await createProject(t);
  const viewers = `viewers-${tag()}`;
  // The provider's group `viewers` is a viewer of the project, set as an operator would (docs/security.md, "Group roles").
  const mapped = await t
    .http()
    .put(`/v2/workspaces/${p.workspace}/group-roles/${viewers}`)
    .set('X-API-Key', TEST_ADMIN_KEY)
    .send({ role: 'viewer', project: p.project });
  if (mapped.status !== 200) throw new Error(`group role not set: ${mapped.status} ${JSON.stringify(mapped.body)}`);
  return {
    provider,
    t,
    p,
    viewers,
    account: (claims = {}, domain = 'example.com') => {
      const login = `person-${tag()}`;
      const email = `${login}@${domain}`;
      provider.accounts.set(login, { email, email_verified: true, name: `Person ${login}`, ...claims });
      return { login, email };
    },
    signIn: async (login, headers, options = {}) => {
      const round = await throughProvider(t, PUBLIC_URL, { login, headers, ...options });
      return { round, res: await openCallback(t, round, headers) };
    },
    auditRows: (action, client) =>
      t.dataSource.query(
        `SELECT actor_kind, actor_user_id, actor_user_email, resource_type, resource_id, after, client_address
           FROM instance_audit_events WHERE action = $1 AND client_address = $2 ORDER BY id`,
        [action, client],
      ),
    close: async () => {
      await t.close();
      await provider.close();
    },
  };
}
