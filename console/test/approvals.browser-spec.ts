import type { Page } from 'playwright-core';

import { createProject, TestProject } from '../../test/support/factories';
import { deploy, listen } from '../../test/support/invoke-factories';
import { addPerson, Person } from '../../test/support/person-fixtures';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from '../../test/support/test-app';
import { Browser, callApi, launchBrowser, seriousViolations } from './browser';

/**
 * A protected production in chromium (docs/console.md, "Approvals"; docs/security.md, "Approvals"):
 * two people with the deployer role (users and memberships inserted by SQL, sessions started
 * through the app's ConsoleSessionsService.startForUser: fixtures until the members API and the
 * OpenID sign-in land). A asks to deploy v2 to production from the prompt's page, which says it
 * waits; on the Approvals page A's own approval is refused and the page says why; B approves, and
 * production then serves v2. The server runs in this process (its DI makes the sessions), on PGlite
 * or on DATABASE_URL's PostgreSQL.
 */
describe(`approvals in the console (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let t: TestApp;
  let url: string;
  let p: TestProject;
  let a: Person;
  let b: Person;
  let browser: Browser;
  let page: Page;

  const api = (method: string, path: string, body?: unknown) => callApi(url, p.key, method, path, body);
  /** The version production serves, by a real call's `x-parley-version`. */
  const served = async () => {
    const res = await api('POST', `/${p.workspace}/${p.project}/greet/production`, { messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    return Number(res.headers.get('x-parley-version'));
  };
  /** The browser as `who`: their session cookie, and the project the console works in (what a person picks after signing in). */
  const signInAs = async (who: Person) => {
    await browser.context.clearCookies();
    await browser.context.addCookies([{ name: 'parley_session', value: who.token, url }]);
    await page.goto(`${url}/console/sign-in`);
    await page.evaluate(`sessionStorage.setItem('parley.project', ${JSON.stringify(`${p.workspace}/${p.project}`)})`);
  };
  const noSeriousViolations = async (screen: string) =>
    expect({ screen, violations: await seriousViolations(page) }).toEqual({ screen, violations: [] });

  beforeAll(async () => {
    t = await createTestApp({ PARLEY_SECRET_KEY: 'console-tests-secret-key-0123456789abcdef' });
    url = await listen(t);
    p = await createProject(t);
    await deploy(t, p, { slug: 'greet', template: [{ role: 'system', content: 'One.' }] });
    await deploy(t, p, { slug: 'greet', template: [{ role: 'system', content: 'Two.' }], environments: [] });
    // The admin key in the project protects production (a project admin could too).
    const protectedRes = await fetch(`${url}/v2/environments/production/protection`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': TEST_ADMIN_KEY, 'X-Parley-Project': `${p.workspace}/${p.project}` },
      body: JSON.stringify({ requireApproval: true, barKeys: false }),
    });
    expect(protectedRes.status).toBe(200);
    a = await addPerson(t.app, p, 'deployer', 'ana');
    b = await addPerson(t.app, p, 'deployer', 'ben');
    browser = await launchBrowser();
    page = browser.page;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it("A asks to deploy v2 to production: the prompt's page says it waits for approval, and production still runs v1", async () => {
    await signInAs(a);
    await page.goto(`${url}/console/prompts/greet`);
    await page.getByRole('heading', { name: 'greet' }).waitFor();
    await page.getByRole('button', { name: 'Deploy v2' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Deploy to production' }).click();
    const status = page.getByRole('status').filter({ hasText: 'Waiting for approval' });
    await status.waitFor();
    expect(await status.textContent()).toContain('v2 to production is protected, so nothing is deployed yet');
    const waiting = page.getByRole('list', { name: 'Deploys waiting for approval' }).getByRole('listitem');
    await waiting.first().waitFor();
    expect(await waiting.allTextContents()).toEqual([expect.stringContaining(`v2 to production, asked by ${a.email}`)]);
    await noSeriousViolations('prompt waiting for approval');
    expect(await served()).toBe(1);
    const pending = await api('GET', '/v2/deployment-requests?status=pending');
    expect(pending.body.data).toEqual([
      expect.objectContaining({ prompt: 'greet', requestedBy: { kind: 'user', id: a.id, name: a.email } }),
    ]);
  });

  it('A cannot approve their own request: the Approvals page says why', async () => {
    await page.getByRole('link', { name: 'Approvals' }).first().click();
    await page.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
    const row = page.getByRole('row', { name: 'greet: v2 to production' });
    await row.getByRole('button', { name: 'Approve greet' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Approve and deploy' }).click();
    await row.getByRole('alert').getByText('You cannot approve your own deployment request').waitFor();
    await noSeriousViolations('approvals refused');
    expect(await served()).toBe(1);
  });

  it('B approves with a comment: the page says it is deployed, and production serves v2', async () => {
    await signInAs(b);
    await page.goto(`${url}/console/approvals`);
    const row = page.getByRole('row', { name: 'greet: v2 to production' });
    await row.getByLabel('Comment on greet').fill('Checked: ship it.');
    await row.getByRole('button', { name: 'Approve greet' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Approve and deploy' }).click();
    await page.getByRole('status').getByText(`Approved and deployed: v2 to production (asked by ${a.email}).`).waitFor();
    await page.getByText('Nothing waits for approval').waitFor();
    const decided = page.getByRole('region', { name: 'Decided' }).getByRole('row').nth(1);
    expect(await decided.textContent()).toContain(b.email);
    await noSeriousViolations('approvals decided');
    expect(await served()).toBe(2);
    const request = (await api('GET', '/v2/deployment-requests?status=approved')).body.data[0];
    expect(request).toMatchObject({ comment: 'Checked: ship it.', decidedBy: { kind: 'user', id: b.id, name: b.email } });
  });
});
