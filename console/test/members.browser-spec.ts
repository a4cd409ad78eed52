import type { Page } from 'playwright-core';

import type { SpawnedServer } from '../../test/support/spawn-server';
import { Browser, callApi, launchBrowser, seriousViolations } from './browser';
import { CONSOLE_TESTS_SECRET_KEY, ConsoleServer, startConsoleServer } from './console-server';

/**
 * The Members screen in chromium against a real Parley process (docs/console.md, "Members"): signed
 * in with the admin key, in the default project, a member is added by e-mail address, their role
 * changed with the row's picker, a group given a role, and the member removed after the
 * confirmation. Each step checks what the screen shows and what the API answers.
 */
describe(`members in the console (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let server: SpawnedServer;
  let running: ConsoleServer | undefined;
  let browser: Browser;
  let page: Page;
  let adminKey: string;
  const email = 'ana.members@example.com';

  const api = (method: string, path: string, body?: unknown) => callApi(server.url, adminKey, method, path, body);
  const memberOf = async (path: string) =>
    (
      (await api('GET', path)).body.data as {
        user: { email: string };
        role: string | null;
        projects: { project: string; role: string }[];
      }[]
    ).find((m) => m.user.email === email);
  /** Picks an option; the picker is reopened until its list has loaded. */
  const choose = async (label: string, option: string, within = page.getByRole('main')) => {
    const picker = within
      .locator('.field')
      .filter({ has: page.getByText(label, { exact: true }) })
      .getByRole('button');
    await pick(picker, option);
  };
  const pick = async (picker: ReturnType<Page['getByRole']>, option: string) => {
    const item = page.getByRole('option', { name: option, exact: true });
    for (let attempt = 0; attempt < 20; attempt++) {
      await picker.click();
      if (
        await item.waitFor({ timeout: 1500 }).then(
          () => true,
          () => false,
        )
      )
        return item.click();
      await page.keyboard.press('Escape');
    }
    throw new Error(`option "${option}" never appeared`);
  };
  const accessible = async (screen: string) =>
    expect({ screen, violations: await seriousViolations(page) }).toEqual({ screen, violations: [] });

  beforeAll(async () => {
    running = await startConsoleServer({ PARLEY_SECRET_KEY: CONSOLE_TESTS_SECRET_KEY });
    server = running.server;
    adminKey = running.adminKey;
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(`${server.url}/console/sign-in`);
    await page.getByLabel('API key').fill(adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Keys and limits', exact: true }).waitFor();
    const switcher = page.getByRole('group', { name: 'Project switcher' });
    await choose('Workspace', 'default', switcher);
    await choose('Project', 'default', switcher);
  });
  afterAll(async () => {
    await browser?.close();
    await running?.stop();
  });

  it('adds a member by e-mail, changes their role, gives a group a role, and removes the member', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Members', exact: true }).click();
    await page.getByRole('heading', { name: 'Members of default', exact: true }).waitFor();
    await page.getByRole('heading', { name: 'No members yet' }).waitFor();
    await accessible('members-empty');

    // Added to the whole workspace, before they ever signed in.
    await page.getByLabel('E-mail address').fill(email);
    await choose('Role', 'editor: edits, no deploys', page.getByRole('form', { name: 'Add a member' }));
    await page.getByRole('button', { name: 'Add member' }).click();
    const row = page.getByRole('row').filter({ hasText: email });
    await row.getByText('not yet').waitFor();
    expect(await memberOf('/v2/workspaces/default/members')).toMatchObject({ role: 'editor', projects: [] });
    await accessible('members-added');

    // The row's picker changes the role at once.
    await pick(row.getByRole('button', { name: new RegExp(`Role of ${email}`) }), 'deployer');
    await row.getByRole('button', { name: /deployer/ }).waitFor();
    for (let waited = 0; waited < 5000 && (await memberOf('/v2/workspaces/default/members'))?.role !== 'deployer'; waited += 100)
      await page.waitForTimeout(100);
    expect(await memberOf('/v2/workspaces/default/members')).toMatchObject({ role: 'deployer' });

    // A group's role in this project.
    await page.getByLabel('Group', { exact: true }).fill('support-leads');
    await page.getByRole('button', { name: 'Give the role' }).click();
    const groupRow = page.getByRole('row').filter({ hasText: 'support-leads' });
    await groupRow.getByText('viewer', { exact: true }).waitFor();
    expect((await api('GET', '/v2/workspaces/default/group-roles')).body.data).toEqual([
      expect.objectContaining({ group: 'support-leads', project: 'default', role: 'viewer', managedBy: 'api' }),
    ]);

    // Removed, after the confirmation.
    await row.getByRole('button', { name: `Remove ${email}` }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByText('Left with no role anywhere, they are signed out everywhere at once.', { exact: false }).waitFor();
    await accessible('members-remove-confirm');
    await dialog.getByRole('button', { name: 'Remove', exact: true }).click();
    await page.getByRole('heading', { name: 'No members yet' }).waitFor();
    expect(await memberOf('/v2/workspaces/default/members')).toBeUndefined();
  });
});
