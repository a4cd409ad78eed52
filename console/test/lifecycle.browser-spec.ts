import type { Page } from 'playwright-core';

import { createProject, TestProject } from '../../test/support/factories';
import { deploy, listen } from '../../test/support/invoke-factories';
import { createTestApp, TestApp } from '../../test/support/test-app';
import { Browser, callApi, launchBrowser, screenshot, seriousViolations, signIn } from './browser';

/**
 * Archiving, undeploying and deleting in chromium (docs/console.md, "Archiving and undeploying"),
 * signed in with a project key, against the app in this process (PGlite, or DATABASE_URL's
 * PostgreSQL). `order-status` was made as a prompt where an assistant was meant and deployed to
 * preview: its Archive button says to undeploy it first; it is undeployed, archived (the page
 * says so, the list hides it, "archived" shows it) and restored. `support-reply` is undeployed
 * from staging. On the environments screen, `qa` (which runs nothing) is deleted, and production's
 * Delete is disabled, saying why. Each step is checked through the API; axe on each screen.
 */
describe(`archiving, undeploying and deleting in the console (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let t: TestApp;
  let url: string;
  let p: TestProject;
  let browser: Browser;
  let page: Page;

  const api = (method: string, path: string, body?: unknown) => callApi(url, p.key, method, path, body);
  const accessible = async (screen: string) =>
    expect({ screen, violations: await seriousViolations(page) }).toEqual({ screen, violations: [] });
  const confirm = async (button: string, confirmLabel: string) => {
    await page.getByRole('button', { name: button, exact: true }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: confirmLabel, exact: true }).click();
    await page.getByRole('alertdialog').waitFor({ state: 'detached' });
  };
  /** Polls the API until `check` holds (the screen's request may still be on its way). */
  const eventually = async (check: () => Promise<boolean>) => {
    for (let waited = 0; waited < 5000; waited += 100) {
      if (await check()) return;
      await page.waitForTimeout(100);
    }
    throw new Error('the API never showed the change');
  };

  beforeAll(async () => {
    t = await createTestApp({ PARLEY_SECRET_KEY: 'console-tests-secret-key-0123456789abcdef' });
    url = await listen(t);
    p = await createProject(t);
    await deploy(t, p, {
      slug: 'support-reply',
      template: [{ role: 'system', content: 'You answer Larkspur Coffee customers in two short, friendly sentences.' }],
      environments: ['production', 'staging'],
    });
    await deploy(t, p, {
      slug: 'order-status',
      template: [{ role: 'system', content: 'Look up the order {{order}} and say where it is.' }],
      environments: ['preview'],
    });
    expect((await api('POST', '/v2/environments', { slug: 'qa' })).status).toBe(200);
    browser = await launchBrowser();
    page = browser.page;
    await signIn(page, url, p.key);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('archives a prompt once it is undeployed, shows it as archived, and restores it', async () => {
    await page.goto(`${url}/console/prompts/order-status`);
    await page.getByRole('heading', { name: 'order-status' }).waitFor();
    expect(await page.getByRole('button', { name: 'Archive order-status' }).isDisabled()).toBe(true);
    await page.getByText('To archive it, undeploy it from preview first.').waitFor();

    await confirm('Undeploy preview', 'Undeploy preview');
    await page.getByText('Not deployed anywhere yet').waitFor();
    await eventually(async () => (await api('GET', '/v2/prompts/order-status')).body.deployments.length === 0);
    expect((await api('POST', `/${p.workspace}/${p.project}/order-status/preview`, {})).status).toBe(404);

    await confirm('Archive order-status', 'Archive');
    const banner = page.getByRole('note', { name: 'Archived' });
    await banner.getByText('calls to order-status answer 404').waitFor();
    expect((await api('GET', '/v2/prompts/order-status')).body.archivedAt).toEqual(expect.any(String));
    await accessible('archived prompt');
    await screenshot(page, 'prompt-archived');

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Prompts', exact: true }).click();
    await page.getByRole('link', { name: 'support-reply' }).waitFor();
    expect(await page.getByRole('link', { name: 'order-status' }).count()).toBe(0);
    await page.getByRole('radiogroup', { name: 'Show' }).getByText('archived', { exact: true }).click();
    const row = page.getByRole('row').filter({ hasText: 'order-status' });
    await row.getByRole('button', { name: 'Restore order-status' }).waitFor();
    expect(page.url()).toContain('archived=true');
    await accessible('archived prompts');

    await row.getByRole('link', { name: 'order-status' }).click();
    await confirm('Restore order-status', 'Restore');
    await page.getByRole('button', { name: 'Archive order-status' }).waitFor();
    expect(await page.getByRole('note', { name: 'Archived' }).count()).toBe(0);
    expect((await api('GET', '/v2/prompts/order-status')).body.archivedAt).toBeNull();
  });

  it('undeploys one environment of a prompt from its page', async () => {
    await page.goto(`${url}/console/prompts/support-reply`);
    await page.getByRole('heading', { name: 'support-reply' }).waitFor();
    await page.getByRole('button', { name: 'Undeploy staging' }).waitFor();
    await accessible('prompt with undeploy buttons');
    await page.getByRole('button', { name: 'Undeploy staging', exact: true }).click();
    await page.getByRole('alertdialog').getByText('staging stops serving support-reply at once').waitFor();
    await accessible('undeploy confirmation');
    await page.getByRole('alertdialog').getByRole('button', { name: 'Undeploy staging', exact: true }).click();
    await page.getByRole('button', { name: 'Undeploy staging' }).waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Undeploy production' }).waitFor();
    const live = (await api('GET', '/v2/prompts/support-reply')).body.deployments.map((d: { environment: string }) => d.environment);
    expect(live).toEqual(['production']);
    expect((await api('POST', `/${p.workspace}/${p.project}/support-reply/staging`, {})).status).toBe(404);
    expect((await api('POST', `/${p.workspace}/${p.project}/support-reply/production`, {})).status).toBe(200);
  });

  it('deletes an environment that runs nothing; one that runs a prompt says why it cannot be deleted', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Environments', exact: true }).click();
    await page.getByRole('heading', { name: 'Environments', exact: true }).waitFor();
    const production = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'production', exact: true }) });
    await production.getByText('Runs support-reply: undeploy it first.').waitFor();
    expect(await production.getByRole('button', { name: 'Delete production' }).isDisabled()).toBe(true);
    await accessible('environments');
    await screenshot(page, 'environments');

    await confirm('Delete qa', 'Delete qa');
    await page.getByRole('status').getByText('Deleted qa.').waitFor();
    await page.getByRole('cell', { name: 'qa', exact: true }).waitFor({ state: 'detached' });
    const slugs = (await api('GET', '/v2/environments')).body.data.map((e: { slug: string }) => e.slug);
    expect(slugs).toEqual(['preview', 'production', 'staging']);
    const [event] = (await api('GET', '/v2/audit?action=environment.deleted')).body.data;
    expect(event).toMatchObject({ resourceId: 'qa', actor: { kind: 'project' } });
    await accessible('environment deleted');
  });
});
