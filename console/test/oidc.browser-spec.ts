import { createServer } from 'node:net';

import type { Page } from 'playwright-core';

import { ProviderProcess, spawnOidcProvider } from '../../test/harness/oidc-provider-process';
import { FreshDatabase, freshDatabase } from '../../test/support/fresh-database';
import { SpawnedServer, spawnServer } from '../../test/support/spawn-server';
import { Browser, callApi, launchBrowser, seriousViolations } from './browser';

const ADMIN_KEY = 'oidc-browser-admin-key-0123456789abcdef';
const CLIENT_SECRET = 'oidc-browser-client-secret-0123456789';
const WORKSPACE = 'sso-team';
const PROJECT = 'sso-app';
const PROMPT = 'sso-greeting';
const VIEWERS = 'parley-sso-viewers';
const LOGIN = 'ada';
const EMAIL = 'ada@example.com';

/** A free port on loopback: PUBLIC_URL (and the redirect URI registered at the provider) names it before the server starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Single sign-on in chromium (docs/console.md, "Signing in"): a real OpenID provider on `localhost`
 * (another site than Parley on 127.0.0.1, so the cookies' SameSite rules are the real ones), its
 * login and consent pages, the console landing in the project of the person's group role, and the
 * role refusing what it lacks.
 */
describe(`single sign-on in chromium (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let provider: ProviderProcess;
  let server: SpawnedServer;
  let browser: Browser;
  let page: Page;
  let database: FreshDatabase;
  let env: Record<string, string>;

  const stop = async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  };

  beforeAll(async () => {
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    provider = await spawnOidcProvider({
      host: 'localhost',
      clients: [{ clientId: 'parley', clientSecret: CLIENT_SECRET, redirectUris: [`${publicUrl}/v2/console/oidc/callback`] }],
      accounts: { [LOGIN]: { email: EMAIL, email_verified: true, name: 'Ada Lovelace', groups: [VIEWERS] } },
    });
    // A database of its own (the walkthrough's server seeds DATABASE_URL's on its first start); on PGlite a data directory, not memory://,
    // since the fixture below is written between two starts of the server.
    database = await freshDatabase();
    env = {
      PORT: String(port),
      PARLEY_ADMIN_KEY: ADMIN_KEY,
      ...database.env,
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: 'parley',
      OIDC_CLIENT_SECRET: CLIENT_SECRET,
      OIDC_SCOPES: 'openid email profile groups',
      OIDC_ALLOWED_DOMAINS: 'example.com',
      PUBLIC_URL: publicUrl,
    };
    server = await spawnServer(env);

    // The project, and a prompt with two versions, v1 live in production: what the operator set up.
    const admin = (method: string, route: string, body?: unknown) => callApi(server.url, ADMIN_KEY, method, route, body);
    expect((await admin('POST', '/v2/workspaces', { slug: WORKSPACE })).status).toBe(200);
    const project = await admin('POST', `/v2/workspaces/${WORKSPACE}/projects`, { slug: PROJECT });
    expect(project.status).toBe(200);
    const key = (await admin('POST', `/v2/workspaces/${WORKSPACE}/projects/${PROJECT}/api-keys`, { name: 'setup' })).body.key as string;
    const call = async (method: string, route: string, body?: unknown) => {
      const res = await callApi(server.url, key, method, route, body);
      expect([route, res.status]).toEqual([route, 200]);
    };
    await call('POST', '/v2/prompts', { slug: PROMPT, kind: 'prompt' });
    for (const content of ['Hello {{name}}.', 'Hello {{name}}, welcome back.']) {
      await call('POST', `/v2/prompts/${PROMPT}/versions`, { template: [{ role: 'system', content }], provider: 'local', model: 'echo' });
    }
    await call('POST', `/v2/prompts/${PROMPT}/deployments`, { environment: 'production', version: 1 });

    // The provider's group VIEWERS is a viewer of the project (docs/security.md, "Group roles").
    expect((await admin('PUT', `/v2/workspaces/${WORKSPACE}/group-roles/${VIEWERS}`, { role: 'viewer', project: PROJECT })).status).toBe(
      200,
    );

    browser = await launchBrowser();
    page = browser.page;
  });

  afterAll(async () => {
    await browser?.close();
    if (server) await stop();
    await provider?.stop();
    await database?.drop();
  });

  it('signs in through the provider and lands in the project of its group role, where a viewer reads but may not deploy', async () => {
    await page.goto(`${server.url}/console/prompts/${PROMPT}`);
    const sso = page.getByRole('link', { name: 'Sign in with single sign-on' });
    await sso.waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await sso.click();

    // The provider's own pages, on another site.
    await page.waitForURL((url) => url.hostname === 'localhost');
    await page.locator('input[name="login"]').fill(LOGIN);
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();

    // Back in the console, on the page asked for, in the one project Ada holds a role in.
    await page.waitForURL(`${server.url}/console/prompts/${PROMPT}`);
    const switcher = page.getByRole('group', { name: 'Project switcher' });
    await switcher.getByRole('button', { name: `${WORKSPACE} / ${PROJECT} (viewer)` }).waitFor();
    await page.getByText(EMAIL).waitFor();
    await page.getByRole('heading', { name: PROMPT }).waitFor();
    await page.getByRole('link', { name: 'Prompts' }).click();
    await page.getByRole('heading', { name: 'Prompts and assistants', exact: true }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('link', { name: PROMPT }).click();

    // Deploying needs the deploy scope, which a viewer's role lacks: the API's refusal, shown.
    await page.getByRole('button', { name: 'Deploy v2' }).click();
    await page.getByRole('button', { name: 'Deploy to production' }).click();
    await page.getByRole('alert').filter({ hasText: 'Your role here lacks the scope this endpoint needs: deploy' }).waitFor();
    // Nothing was deployed.
    const prompt = await fetch(`${server.url}/v2/prompts/${PROMPT}`, {
      headers: { 'X-API-Key': ADMIN_KEY, 'X-Parley-Project': `${WORKSPACE}/${PROJECT}` },
    }).then((res) => res.json() as Promise<{ deployments: { environment: string; version: number }[] }>);
    expect(prompt.deployments.map((d) => [d.environment, d.version])).toEqual([['production', 1]]);
  });

  it('says why a sign-in was refused', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.goto(`${server.url}/console/sign-in?signInError=domain_not_allowed`);
    await page.getByRole('alert').filter({ hasText: 'Your e-mail address is not in a domain allowed to sign in here.' }).waitFor();
    await page.getByLabel('API key').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });
});
