import type { Locator, Page } from 'playwright-core';

import { FreshDatabase, freshDatabase } from '../../test/support/fresh-database';
import { listen } from '../../test/support/invoke-factories';
import { SignedInPerson, signedInPerson, uniqueEmail } from '../../test/support/people-fixtures';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from '../../test/support/test-app';
import { Browser, launchBrowser, seriousViolations, signIn } from './browser';

/**
 * The Audit screen (docs/console.md, "Audit"): changes made through the API, one of them by a
 * person from their console session, are listed with the person's e-mail or the key's name; a
 * filter narrows the list and is kept in the URL; an admin also sees the instance's trail. The
 * server runs in this process (the app as main.ts wires it), so a person's session can be started
 * through its own ConsoleSessionsService (test/support/people-fixtures.ts) until the members API
 * and sign-in make people over HTTP.
 */
describe(`console: audit (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let t: TestApp;
  let url: string;
  let database: FreshDatabase | undefined;
  let browser: Browser;
  let page: Page;
  let ada: SignedInPerson;
  const workspace = 'audited';
  const project = 'web';
  let projectKey: string;

  /** Polls a locator's count until it is `count` or 10 s passed (a string waitForFunction is refused by the console's CSP). */
  const settledCount = async (locator: Locator, count: number) => {
    for (let waited = 0; waited < 10_000 && (await locator.count()) !== count; waited += 100) await page.waitForTimeout(100);
    return locator.count();
  };
  const bodyRows = () => page.getByRole('table').locator('tbody tr');
  const accessible = async (screen: string) =>
    expect({ screen, violations: await seriousViolations(page) }).toEqual({ screen, violations: [] });

  beforeAll(async () => {
    database = process.env.DATABASE_URL ? await freshDatabase() : undefined;
    t = await createTestApp({ LOG_LEVEL: 'silent', ...(database ? database.env : { DATA_DIR: 'memory://' }) });
    url = await listen(t);
    const admin = { 'X-API-Key': TEST_ADMIN_KEY };
    await t.http().post('/v2/workspaces').set(admin).send({ slug: workspace }).expect(200);
    await t.http().post(`/v2/workspaces/${workspace}/projects`).set(admin).send({ slug: project }).expect(200);
    projectKey = (
      await t.http().post(`/v2/workspaces/${workspace}/projects/${project}/api-keys`).set(admin).send({ name: 'ci-bot' }).expect(200)
    ).body.key;
    // A person who edits the project and administers the workspace, and a change of each kind.
    ada = await signedInPerson(t, uniqueEmail('Ada'), [
      { workspace, project, role: 'editor' },
      { workspace, role: 'admin' },
    ]);
    await t
      .http()
      .post('/v2/prompts')
      .set(ada.headers(`${workspace}/${project}`))
      .send({ slug: 'greeting' })
      .expect(200);
    await t.http().post('/v2/environments').set('X-API-Key', projectKey).send({ slug: 'qa' }).expect(200);
    await t.http().post(`/v2/workspaces/${workspace}/projects`).set(ada.headers()).send({ slug: 'mobile' }).expect(200);
    browser = await launchBrowser();
    page = browser.page;
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await database?.drop();
  });

  it("lists the project's changes naming the person or the key; a filter narrows the list and is kept in the URL", async () => {
    await signIn(page, url, projectKey);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit', exact: true }).click();
    await page.getByRole('heading', { name: 'Audit', exact: true }).waitFor();
    await page.getByRole('cell', { name: ada.email }).waitFor();
    const byAda = bodyRows().filter({ hasText: ada.email });
    expect(await byAda.count()).toBe(1);
    expect(await byAda.getByRole('cell').nth(2).innerText()).toBe('prompt.created');
    const byKey = bodyRows().filter({ hasText: 'environment.created' });
    expect(await byKey.getByRole('cell').nth(1).innerText()).toBe('key ci-bot');
    // No instance tab for a project key.
    expect(await page.getByRole('tab').count()).toBe(0);
    const all = await bodyRows().count();
    expect(all).toBeGreaterThanOrEqual(3); // its own key, Ada's prompt, the key's environment
    await accessible('audit');

    // Ada's changes only, by her address in any case.
    await page.getByLabel('Person (e-mail)').fill(ada.email.toLowerCase());
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.waitForURL((at) => at.searchParams.get('actorEmail') === ada.email.toLowerCase());
    expect(await settledCount(bodyRows(), 1)).toBe(1);
    expect(await bodyRows().first().innerText()).toContain(ada.email);

    // The URL alone opens the filtered list; another filter empties it.
    await page.goto(`${url}/console/audit?action=environment.created`);
    expect(await settledCount(bodyRows(), 1)).toBe(1);
    expect(await bodyRows().first().innerText()).toContain('key ci-bot');
    await page.goto(`${url}/console/audit?actorEmail=${encodeURIComponent(uniqueEmail('nobody'))}`);
    await page.getByRole('heading', { name: 'No events match these filters' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Parley', exact: true }).waitFor();
  });

  it("shows an admin the instance's trail: who made the workspace and its projects", async () => {
    await page.getByLabel('API key').fill(TEST_ADMIN_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Keys and limits', exact: true }).waitFor();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit', exact: true }).click();
    // No project picked: the instance's trail only.
    const byAda = bodyRows().filter({ hasText: 'project.created' }).filter({ hasText: ada.email });
    await byAda.waitFor();
    expect(await byAda.innerText()).toContain(`${workspace}/mobile`);
    const byAdmin = bodyRows().filter({ hasText: 'workspace.created' }).filter({ hasText: 'admin key PARLEY_ADMIN_KEY' });
    expect(await byAdmin.count()).toBe(1);
    await accessible('audit-instance');

    await page.getByLabel('Person (e-mail)').fill(ada.email);
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.waitForURL((at) => at.searchParams.get('actorEmail') === ada.email && at.searchParams.get('trail') === 'instance');
    expect(await settledCount(bodyRows(), 1)).toBe(1);
    expect(await bodyRows().first().innerText()).toContain(`${workspace}/mobile`);

    // Working in a project (the switcher keeps it in this tab's sessionStorage): both trails, the project's first.
    await page.evaluate(`sessionStorage.setItem('parley.project', '${workspace}/${project}')`);
    await page.goto(`${url}/console/audit`);
    await page.getByRole('tab', { name: 'This project' }).waitFor();
    expect(await page.getByRole('tab', { name: 'This project' }).getAttribute('aria-selected')).toBe('true');
    await page.getByRole('cell', { name: ada.email }).waitFor();
    expect(await bodyRows().filter({ hasText: 'prompt.created' }).innerText()).toContain(ada.email);
    await page.getByRole('tab', { name: 'Instance' }).click();
    await page.waitForURL((at) => at.searchParams.get('trail') === 'instance');
    await bodyRows().filter({ hasText: 'workspace.created' }).waitFor();
    await accessible('audit-tabs');
  });
});
