import type { Locator, Page } from 'playwright-core';

import { FakeUpstream, openaiError, openaiJson, startFakeOpenAIUpstream } from '../../test/fakes/fake-openai-upstream';
import type { SpawnedServer } from '../../test/support/spawn-server';
import { Browser, launchBrowser, screenshot, seriousViolations } from './browser';
import { CONSOLE_TESTS_SECRET_KEY, ConsoleServer, startConsoleServer } from './console-server';

/**
 * Administration in the console (docs/console.md, "Providers", "Workspaces and projects", "Keys")
 * in chromium against a real Parley process, signed in with the admin key: a provider added with
 * its key, tested against a fake OpenAI-compatible upstream on loopback (connected, then a refused
 * key, whose echo of the key never reaches the page), its key rotated (the next test sends the new
 * one) and its deletion refused while a deployment uses it; a workspace and a project created,
 * switched to in the header, and the keys screen following the header (no picker of its own), a
 * key's last use and spend shown after a call; the project deleted by typing its name, its key
 * refused afterwards. axe-core finds no serious or critical violation on any screen.
 */
describe(`console: administration (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let server: SpawnedServer;
  let running: ConsoleServer | undefined;
  let upstream: FakeUpstream;
  let browser: Browser;
  let page: Page;
  let adminKey: string;
  let projectKey: string;
  /** The key made on the keys screen in the new project. */
  let kioskKey: string;
  const FIRST_KEY = 'sk-larkspur-first-0123456789';
  const SECOND_KEY = 'sk-larkspur-second-0123456789';

  /** The API as a key, optionally acting in a project (X-Parley-Project), as the console's admin session does. */
  const api = async (method: string, path: string, options: { key?: string; project?: string; body?: unknown } = {}) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        'Content-Type': 'application/json',
        'X-API-Key': options.key ?? adminKey,
        ...(options.project ? { 'X-Parley-Project': options.project } : {}),
      },
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const accessible = async (screen: string, picture = true) => {
    if (picture) await screenshot(page, screen);
    expect({ screen, violations: await seriousViolations(page) }).toEqual({ screen, violations: [] });
  };
  const nav = (name: string) => page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true });
  const switcher = () => page.getByRole('group', { name: 'Project switcher' });
  /** Picks an option; the picker is reopened until its list has loaded. */
  const choose = async (within: Locator, label: string, option: string) => {
    const picker = within
      .locator('.field')
      .filter({ has: page.getByText(label, { exact: true }) })
      .getByRole('button');
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
    throw new Error(`option "${option}" never appeared in the "${label}" picker`);
  };
  const chooseProject = async (workspace: string, project: string) => {
    await choose(switcher(), 'Workspace', workspace);
    await choose(switcher(), 'Project', project);
  };
  const providerRow = (name: string) => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });

  beforeAll(async () => {
    upstream = await startFakeOpenAIUpstream();
    running = await startConsoleServer({
      PARLEY_SECRET_KEY: CONSOLE_TESTS_SECRET_KEY,
      PROVIDER_ALLOWED_HOSTS: `127.0.0.1:${new URL(upstream.url).port}`,
    });
    server = running.server;
    adminKey = running.adminKey;
    projectKey = running.projectKey;
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(`${server.url}/console/sign-in`);
    await page.getByLabel('API key').fill(adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Keys and limits', exact: true }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await running?.stop();
    await upstream?.close();
  });

  it('adds a provider, tests it (connected, then a refused key), rotates its key, and shows why it cannot be deleted', async () => {
    // Without a project the keys screen asks for one in the header: it has no picker of its own.
    await page.getByRole('heading', { name: 'Pick a project' }).waitFor();
    expect(await page.getByRole('main').locator('.field').count()).toBe(0);
    await chooseProject('default', 'default');
    await nav('Providers').click();
    await page.getByRole('heading', { name: 'Providers', exact: true }).waitFor();
    await providerRow('local').waitFor();

    const form = page.getByRole('form', { name: 'Add a provider' });
    await form.getByLabel('Name').fill('larkspur-openai');
    await form.getByLabel('Base URL').fill(upstream.url);
    await form.getByLabel('API key').fill(FIRST_KEY);
    await form.getByRole('button', { name: 'Add provider' }).click();
    await page.getByText('Added larkspur-openai: test it below.').waitFor();
    const row = providerRow('larkspur-openai');
    await row.getByText('stored (encrypted)').waitFor();
    const listed = await api('GET', '/v2/provider-credentials', { key: projectKey });
    expect(listed.body.data.find((p: { name: string }) => p.name === 'larkspur-openai')).toMatchObject({
      type: 'openai',
      baseUrl: upstream.url,
      apiKeySource: 'stored',
    });

    // Connected: the fake lists three models and saw the key.
    upstream.setNext(openaiJson({ object: 'list', data: ['gpt-a', 'gpt-b', 'gpt-c'].map((id) => ({ id, object: 'model' })) }));
    const before = upstream.requests.length;
    await row.getByRole('button', { name: 'Test larkspur-openai' }).click();
    const outcome = page.getByRole('status', { name: 'Test of larkspur-openai' });
    await outcome.getByText(/^OK \(\d+ ms\): Connected to 127\.0\.0\.1:\d+: 3 models listed\.$/).waitFor();
    expect(upstream.requests.slice(before).map((r) => [r.method, r.path, r.headers.authorization])).toEqual([
      ['GET', '/v1/models', `Bearer ${FIRST_KEY}`],
    ]);

    // Refused: the provider quotes the key back; the page shows its reason, the key redacted.
    upstream.setNext(openaiError(401, `Incorrect API key provided: ${FIRST_KEY}.`));
    await row.getByRole('button', { name: 'Test larkspur-openai' }).click();
    await outcome
      .getByText(/^Failed, 401 \(\d+ ms\): 127\.0\.0\.1:\d+ refused the key \(401\): Incorrect API key provided: \[redacted\]\.$/)
      .waitFor();
    expect(await page.content()).not.toContain(FIRST_KEY);
    await accessible('providers');

    // Rotated: the next test sends the new key.
    await row.getByRole('button', { name: 'Rotate key of larkspur-openai' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Rotate the key of larkspur-openai' }).waitFor();
    await dialog.getByLabel('New API key').fill(SECOND_KEY);
    await accessible('provider-rotate', false);
    await dialog.getByRole('button', { name: 'Save the new key' }).click();
    await dialog.waitFor({ state: 'detached' });
    upstream.setNext(openaiJson({ object: 'list', data: [] }));
    await row.getByRole('button', { name: 'Test larkspur-openai' }).click();
    await outcome.getByText(/^OK \(\d+ ms\): Connected to 127\.0\.0\.1:\d+: 0 models listed\.$/).waitFor();
    expect(upstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECOND_KEY}`);

    // In use by a deployment: the API's 409 is shown, and the provider stays.
    const as = { key: projectKey };
    await api('POST', '/v2/prompts', { ...as, body: { slug: 'greeter' } });
    const version = await api('POST', '/v2/prompts/greeter/versions', {
      ...as,
      body: { template: [{ role: 'system', content: 'Greet.' }], provider: 'larkspur-openai', model: 'gpt-a' },
    });
    await api('POST', '/v2/prompts/greeter/deployments', { ...as, body: { environment: 'production', version: version.body.version } });
    await row.getByRole('button', { name: 'Delete larkspur-openai' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete', exact: true }).click();
    await page
      .getByRole('alert')
      .getByText('Provider "larkspur-openai" is used by current deployments: greeter (production); deploy other versions first')
      .waitFor();
    await row.waitFor();
    expect((await api('GET', '/v2/provider-credentials', as)).body.data.map((p: { name: string }) => p.name)).toContain('larkspur-openai');
  });

  it('creates a workspace and a project, switches to it in the header, and the keys screen follows: a key, its last use and spend', async () => {
    await nav('Keys and limits').click();
    await page.getByRole('heading', { name: 'Keys of default/default', exact: true }).waitFor();
    await nav('Workspaces').click();
    await page.getByRole('heading', { name: 'Workspaces and projects', exact: true }).waitFor();
    const newWorkspace = page.getByRole('form', { name: 'New workspace' });
    await newWorkspace.getByLabel('New workspace (slug)').fill('larkspur');
    await newWorkspace.getByLabel('Display name').fill('Larkspur Coffee');
    await newWorkspace.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('heading', { name: 'Projects of larkspur', exact: true }).waitFor();
    await page.getByRole('heading', { name: 'No projects' }).waitFor();
    const newProject = page.getByRole('form', { name: 'New project' });
    await newProject.getByLabel('New project (slug)').fill('support');
    await newProject.getByRole('button', { name: 'Create project' }).click();
    await page.getByText('Created larkspur/support.').waitFor();
    await page.getByRole('rowheader', { name: 'support', exact: true }).waitFor();
    expect((await api('GET', '/v2/workspaces/larkspur/projects')).body.data.map((p: { slug: string }) => p.slug)).toEqual(['support']);
    await accessible('workspaces');

    // The header's choice: the keys screen, open on default/default, follows it to the new project.
    await nav('Keys and limits').click();
    await page.getByRole('heading', { name: 'Keys of default/default', exact: true }).waitFor();
    await chooseProject('larkspur', 'support');
    await page.getByRole('heading', { name: 'Keys of larkspur/support', exact: true }).waitFor();
    await page.getByRole('heading', { name: 'No keys' }).waitFor();
    for (const label of ['Workspace', 'Project']) expect(await page.getByRole('main').getByText(label, { exact: true }).count()).toBe(0);

    await page.getByLabel("New key's name").fill('kiosk');
    await page.getByRole('button', { name: 'Create a key' }).click();
    kioskKey = (await page.getByLabel('New key', { exact: true }).textContent())!.trim();
    await page.getByRole('button', { name: 'Done' }).click();
    const keyRow = page.getByRole('row').filter({ hasText: 'kiosk' });
    await keyRow.getByText('no calls yet').waitFor();
    // A priced call with the new key (local/echo at $2,000 per million words) under the keys' default budgets:
    // its hour, its spend and the budgets appear on the list.
    const base = '/v2/workspaces/larkspur/projects/support';
    await api('PUT', `${base}/prices`, {
      body: { prices: [{ provider: 'local', model: 'echo', inputPerMTok: 2000, outputPerMTok: 2000 }] },
    });
    await api('PUT', `${base}/limits`, { body: { project: {}, keys: { budgetUsdPerDay: 5, budgetUsdPerMonth: 100 } } });
    const as = { key: kioskKey };
    await api('POST', '/v2/prompts', { ...as, body: { slug: 'hello' } });
    const version = await api('POST', '/v2/prompts/hello/versions', {
      ...as,
      body: { template: [{ role: 'system', content: 'Hi.' }], provider: 'local', model: 'echo' },
    });
    await api('POST', '/v2/prompts/hello/deployments', { ...as, body: { environment: 'production', version: version.body.version } });
    const call = await api('POST', '/larkspur/support/hello/production', {
      ...as,
      body: { messages: [{ role: 'user', content: 'Hello, is the Ethiopia Guji roast back in stock this week?' }] },
    });
    expect(call.status).toBe(200);
    const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString();
    await page.reload();
    await keyRow.getByText(`${hour.slice(0, 10)} ${hour.slice(11, 13)}:00 UTC`).waitFor();
    const listed = (await api('GET', `${base}/api-keys`)).body.data[0];
    expect(listed).toMatchObject({ name: 'kiosk', lastUsedAt: hour, budgetUsdPerDay: '5', budgetUsdPerMonth: '100' });
    expect(Number(listed.spendTodayUsd)).toBeGreaterThan(0);
    expect(listed.spendMonthUsd).toBe(listed.spendTodayUsd);
    const spent = Number(listed.spendTodayUsd);
    const shown = `$${spent < 0.01 ? spent.toFixed(4) : spent.toFixed(2)}`;
    expect(await keyRow.locator('td').nth(3).innerText()).toBe(`${shown} of $5.00`);
    expect(await keyRow.locator('td').nth(4).innerText()).toBe(`${shown} of $100.00`);
    await accessible('keys-spend');
  });

  it('deletes a project after its name is typed in full: the header leaves it, its key is refused', async () => {
    expect((await api('GET', '/v2/threads', { key: kioskKey })).status).toBe(200);
    await nav('Workspaces').click();
    await page.getByRole('heading', { name: 'Projects of larkspur', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Delete project larkspur/support' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByRole('heading', { name: 'Delete the project larkspur/support?' }).waitFor();
    const confirm = dialog.getByRole('button', { name: 'Delete larkspur/support' });
    await dialog.getByLabel('Type larkspur/support to confirm').fill('larkspur/suppor');
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Type larkspur/support to confirm').fill('larkspur/support');
    expect(await confirm.isDisabled()).toBe(false);
    await accessible('delete-project', false);
    await confirm.click();
    await page.getByText(/^Deleted larkspur\/support and its \d+ rows\.$/).waitFor();
    await page.getByRole('heading', { name: 'No projects' }).waitFor();
    expect((await api('GET', '/v2/workspaces/larkspur/projects')).body.data).toEqual([]);
    expect((await api('GET', '/v2/prompts', { project: 'larkspur/support' })).status).toBe(404);
    expect((await api('GET', '/v2/threads', { key: kioskKey })).status).toBe(401);
    // The header no longer works in it: the project screens ask for a project again.
    await nav('Keys and limits').click();
    await page.getByRole('heading', { name: 'Pick a project' }).waitFor();
    // The instance's trail keeps the deletion.
    const trail = (await api('GET', '/v2/admin/audit?workspace=larkspur&action=project.deleted')).body.data;
    expect(trail.map((e: { resourceId: string }) => e.resourceId)).toEqual(['larkspur/support']);
  });
});
