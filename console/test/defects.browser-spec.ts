import type { Locator, Page } from 'playwright-core';

import type { SpawnedServer } from '../../test/support/spawn-server';
import { Browser, callApi, launchBrowser, seriousViolations, signIn } from './browser';
import { ConsoleServer, startConsoleServer } from './console-server';

/**
 * Console defects seen by a person, each checked in chromium against a real Parley process: the
 * playground's comparison with a saved version when the draft adds a variable; "Continue in the
 * playground" from a transcript runs on a copy of the thread (the real one only when chosen); the
 * radio buttons, pickers, revoke and previous-deployment buttons show their state and say what they
 * do; usage split by model is labelled with what the API returned. Everything runs on the local echo
 * provider (it answers with the last user message), no upstream.
 */
const DANGER = 'rgb(179, 38, 30)';
/** The page's own getComputedStyle, called in the functions evaluated there (this file is type-checked without the DOM library). */
declare const getComputedStyle: (
  element: unknown,
  pseudo?: string,
) => { backgroundColor: string; color: string; content: string; borderTopWidth: string };

describe(`console defects (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let server: SpawnedServer;
  let running: ConsoleServer | undefined;
  let browser: Browser;
  let page: Page;
  let projectKey: string;

  const api = (method: string, path: string, body?: unknown, key = projectKey) => callApi(server.url, key, method, path, body);
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await api(method, path, body);
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  /** A prompt or assistant on the local echo provider, with one version per template given. */
  const createPrompt = async (slug: string, kind: 'prompt' | 'assistant', templates: string[]) => {
    await ok('POST', '/v2/prompts', { slug, kind });
    for (const content of templates)
      await ok('POST', `/v2/prompts/${slug}/versions`, { provider: 'local', model: 'echo', template: [{ role: 'system', content }] });
  };
  /** Every message of a thread, oldest first, as [role, text]. */
  const threadMessages = async (threadId: string): Promise<[string, string][]> => {
    const rows = (await ok('GET', `/v2/threads/${threadId}/messages?limit=100&order=asc`)).data as {
      content: { role: string; content: string }[];
    }[];
    return rows.flatMap((row) => row.content.map((m) => [m.role, m.content] as [string, string]));
  };
  /** Polls `done` until it holds or 10 s passed (a streamed call is logged, and its turn stored, as it ends). */
  const settled = async (done: () => Promise<boolean>) => {
    for (let waited = 0; waited < 10_000 && !(await done()); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  };
  const replaceText = async (name: string, text: string) => {
    await page.getByRole('textbox', { name }).click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(text);
  };
  /** The trigger of the picker labelled `label` (a label shown over it). */
  const picker = (label: string, within: Locator = page.getByRole('main')) =>
    within
      .locator('.field')
      .filter({ has: page.getByText(label, { exact: true }) })
      .getByRole('button');
  const background = (locator: Locator) => locator.evaluate((el) => getComputedStyle(el).backgroundColor);
  const colour = (locator: Locator) => locator.evaluate((el) => getComputedStyle(el).color);
  /** The radio's visible dot (its label's ::before): what it draws, and how thick its ring is. */
  const dot = (radio: Locator) =>
    radio.evaluate((input) => {
      const style = getComputedStyle(input.closest('label')!, '::before');
      return { content: style.content, ring: parseFloat(style.borderTopWidth) };
    });
  const noSeriousViolations = async (screen: string) =>
    expect({ screen, violations: await seriousViolations(page) }).toEqual({ screen, violations: [] });

  beforeAll(async () => {
    running = await startConsoleServer();
    server = running.server;
    projectKey = running.projectKey;
    browser = await launchBrowser();
    page = browser.page;
    await signIn(page, server.url, projectKey);
  });
  afterAll(async () => {
    await browser?.close();
    await running?.stop();
  });

  it('compares a draft that adds a variable with the saved version: each side gets only the variables its version declares', async () => {
    await createPrompt('trip-note', 'prompt', ['Write a short note for {{name}}.']);
    await page.goto(`${server.url}/console/prompts/trip-note/playground?from=1`);
    await replaceText('Template message 1 (system)', 'Write a short note for {{name}}, who lives in {{city}}.');
    await page.getByLabel('Variable name').fill('Ada');
    await page.getByLabel('Variable city').fill('Oslo');
    await replaceText('Messages (JSON)', JSON.stringify([{ role: 'user', content: 'Compare both versions please' }]));
    await page.getByRole('main').locator('label.checkbox').filter({ hasText: 'saved v1' }).click();
    await page.getByRole('button', { name: 'Run without saving' }).click();

    const draft = page.getByRole('region', { name: 'Draft output' });
    const saved = page.getByRole('region', { name: 'Saved v1 output' });
    await draft.getByText('Compare both versions please').waitFor();
    await saved.locator('.bubble[aria-busy="false"]').waitFor();
    // The saved version answered too: no "Unrecognized key" refusal for the draft's new variable.
    expect(await saved.getByRole('alert').allTextContents()).toEqual([]);
    await saved.getByText('Compare both versions please').waitFor();

    // The logged calls: the draft's with both variables, the saved version's with its own only.
    const logsOf = async () => (await ok('GET', '/v2/logs?slug=trip-note&limit=10')).data as { status: number; variables: string }[];
    // A streamed call is logged as it ends: wait for both.
    await settled(async () => (await logsOf()).length >= 2);
    const logs = await logsOf();
    expect(logs.map((log) => [log.status, JSON.parse(log.variables)])).toEqual(
      expect.arrayContaining([
        [200, { name: 'Ada', city: 'Oslo' }],
        [200, { name: 'Ada' }],
      ]),
    );
    expect(logs).toHaveLength(2);
  });

  it('"Continue in the playground" runs on a copy of the thread; the real thread gets turns only when chosen', async () => {
    await createPrompt('concierge', 'assistant', ['You are the concierge of a small hotel.']);
    await ok('POST', '/v2/prompts/concierge/deployments', { environment: 'production', version: 1 });
    const real = (await ok('POST', '/v2/threads', { metadata: { customer: 'c_77' } })).id as string;
    for (const question of ['Is breakfast included?', 'Can I check in early?'])
      await ok('POST', '/default/default/concierge/production', { threadId: real, messages: [{ role: 'user', content: question }] });
    const history = await threadMessages(real);
    expect(history.filter(([role]) => role === 'user').map(([, text]) => text)).toEqual([
      'Is breakfast included?',
      'Can I check in early?',
    ]);

    await page.goto(`${server.url}/console/threads/${real}`);
    await page.getByRole('link', { name: 'Continue in the playground (concierge)' }).click();
    await replaceText('Messages (JSON)', JSON.stringify([{ role: 'user', content: 'A draft turn from the playground' }]));
    await page.getByRole('button', { name: 'Run without saving' }).click();
    await page.getByRole('region', { name: 'Draft output' }).getByText('A draft turn from the playground').waitFor();

    // The real thread is as it was (once the run is logged, its turn is stored); a new thread holds
    // its history, then the draft's turn.
    await settled(async () => (await ok('GET', '/v2/logs?slug=concierge&limit=10')).data.length === 3);
    expect(await threadMessages(real)).toEqual(history);
    const forks = (await ok('GET', `/v2/threads?metadata=${encodeURIComponent(`forked_from:${real}`)}`)).data as { id: string }[];
    expect(forks).toHaveLength(1);
    const forked = await threadMessages(forks[0].id);
    expect(forked.slice(0, history.length)).toEqual(history);
    expect(forked.slice(history.length)).toEqual([
      ['user', 'A draft turn from the playground'],
      ['assistant', 'A draft turn from the playground'],
    ]);

    // A clearly labelled choice, the copy chosen unless the person picks the real thread.
    const copy = page.getByRole('radio', { name: /^a copy of thread/ });
    const itself = page.getByRole('radio', { name: /^the real thread/ });
    expect(await page.getByRole('radiogroup', { name: 'Run on' }).count()).toBe(1);
    expect([await copy.isChecked(), await itself.isChecked()]).toEqual([true, false]);
    expect(await page.getByRole('radio', { name: `the real thread ${real.slice(0, 8)}… (this run's turns are added to it)` }).count()).toBe(
      1,
    );
    await noSeriousViolations('playground continuing a thread');
    // The playground links the copy the runs go to.
    await page.getByRole('link', { name: `Thread ${forks[0].id.slice(0, 8)}…` }).click();
    const transcript = page.getByRole('list', { name: 'Transcript' });
    await transcript.getByText('Is breakfast included?').first().waitFor();
    await transcript.getByText('A draft turn from the playground').first().waitFor();

    // Chosen explicitly: the run continues the real thread, and no other copy is made.
    await page.goto(`${server.url}/console/threads/${real}`);
    await page.getByRole('link', { name: 'Continue in the playground (concierge)' }).click();
    await page.locator('label', { has: itself }).click();
    expect([await copy.isChecked(), await itself.isChecked()]).toEqual([false, true]);
    await replaceText('Messages (JSON)', JSON.stringify([{ role: 'user', content: 'On the real thread, as chosen' }]));
    await page.getByRole('button', { name: 'Run without saving' }).click();
    await page.getByRole('region', { name: 'Draft output' }).getByText('On the real thread, as chosen').waitFor();
    await settled(async () => (await threadMessages(real)).length > history.length);
    expect((await threadMessages(real)).slice(history.length)).toEqual([
      ['user', 'On the real thread, as chosen'],
      ['assistant', 'On the real thread, as chosen'],
    ]);
    expect((await ok('GET', `/v2/threads?metadata=${encodeURIComponent(`forked_from:${real}`)}`)).data).toHaveLength(1);
  });

  it('shows which kind is chosen: each radio button draws a dot, filled for the checked one', async () => {
    await page.getByRole('link', { name: 'Prompts', exact: true }).click();
    const kind = page.getByRole('radiogroup', { name: 'Kind' });
    const prompt = kind.getByRole('radio', { name: 'prompt', exact: true });
    const assistant = kind.getByRole('radio', { name: 'assistant', exact: true });
    await prompt.waitFor({ state: 'attached' });
    expect([await prompt.isChecked(), await assistant.isChecked()]).toEqual([true, false]);
    const [checked, unchecked] = [await dot(prompt), await dot(assistant)];
    expect(checked.content).not.toBe('none');
    expect(unchecked.content).not.toBe('none');
    expect(checked.ring).toBeGreaterThan(unchecked.ring);
    await kind.getByText('assistant', { exact: true }).click();
    expect([await prompt.isChecked(), await assistant.isChecked()]).toEqual([false, true]);
    expect((await dot(assistant)).ring).toBeGreaterThan((await dot(prompt)).ring);
    await noSeriousViolations('prompts');
  });

  it('pickers read as fields with a placeholder, and mark the chosen item', async () => {
    await createPrompt('one-version', 'prompt', ['Only one version.']);
    await page.goto(`${server.url}/console/prompts/one-version`);
    await page.getByRole('heading', { name: 'Versions', exact: true }).waitFor();
    // Nothing to compare v1 with yet: "From" says what to do, not React Aria's "Select an item".
    const from = picker('From');
    const to = picker('To');
    expect(await from.innerText()).toContain('Choose a version');
    expect(await page.getByText('Select an item').count()).toBe(0);
    expect(await to.innerText()).toContain('v1');
    // A chevron: it opens a list, it is not a plain button.
    expect(await to.locator('.chevron').isVisible()).toBe(true);
    // In the page's text colour, not the accent of a button or link.
    expect(await colour(to)).toBe(await colour(page.getByRole('heading', { level: 1 })));
    await to.click();
    const option = page.getByRole('option', { name: 'v1', exact: true });
    expect(await option.getAttribute('aria-selected')).toBe('true');
    expect(await option.innerText()).toContain('✓');
    await page.keyboard.press('Escape');
    await from.click();
    expect(await option.getAttribute('aria-selected')).toBe('false');
    expect(await option.innerText()).not.toContain('✓');
    await option.click();
    expect(await from.innerText()).toContain('v1');
    await page.getByRole('link', { name: 'Show the diff of v1 and v1' }).waitFor();
  });

  it("a key's Revoke button is neutral and still asks before it revokes", async () => {
    const key = (await ok('POST', '/v2/workspaces/default/projects/default/api-keys', { name: 'neutral-revoke' })).key as string;
    expect((await api('GET', '/v2/threads', undefined, key)).status).toBe(200);
    await page.goto(`${server.url}/console/keys`);
    const revoke = page.getByRole('button', { name: 'Revoke neutral-revoke' });
    await revoke.waitFor();
    // No key row carries a red button.
    for (const button of await page.getByRole('button', { name: /^Revoke / }).all()) expect(await background(button)).not.toBe(DANGER);
    await revoke.click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByRole('heading', { name: 'Revoke the key neutral-revoke?' }).waitFor();
    // The confirmation is where the destructive act is: its button is the red one.
    expect(await background(dialog.getByRole('button', { name: 'Revoke', exact: true }))).toBe(DANGER);
    await dialog.getByRole('button', { name: 'Revoke', exact: true }).click();
    await page.getByText(/^revoked /).waitFor();
    expect((await api('GET', '/v2/threads', undefined, key)).status).toBe(401);
  });

  it('labels the previous deployment by direction: a roll back to an older version, a deploy of a newer one, neither red', async () => {
    await createPrompt('rollout', 'prompt', ['First.', 'Second.', 'Third.']);
    for (const version of [1, 2, 3]) await ok('POST', '/v2/prompts/rollout/deployments', { environment: 'production', version });
    await page.goto(`${server.url}/console/prompts/rollout`);
    const deployments = page.getByRole('region', { name: 'Deployments' });
    const back = deployments.getByRole('button', { name: 'Roll back production to v2', exact: true });
    await back.waitFor();
    await back.click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Deploy v2 to production', exact: true }).click();
    await deployments.getByRole('cell', { name: 'v2', exact: true }).waitFor();
    const live = (await ok('GET', '/v2/prompts/rollout')).deployments.find((d: { environment: string }) => d.environment === 'production');
    expect(live.version).toBe(2);
    // Production runs v2 now; its previous deployment is v3, a newer version: a deploy, not a roll back.
    const forward = deployments.getByRole('button', { name: 'Deploy v3 to production', exact: true });
    // Beside each environment's Undeploy (docs/console.md, "Archiving and undeploying").
    const moves = deployments.getByRole('button').filter({ hasNotText: /^Undeploy / });
    await settled(async () => (await moves.count()) === 1 && (await back.count()) === 0);
    expect(await moves.allTextContents()).toEqual(['Deploy v3 to production']);
    // Neither direction is red: a roll back is undone by the button it leaves.
    expect(await background(forward)).not.toBe(DANGER);
    await forward.click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByRole('heading', { name: 'Deploy v3 to production again?' }).waitFor();
    expect(await background(dialog.getByRole('button', { name: 'Deploy v3 to production', exact: true }))).not.toBe(DANGER);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    // And before the roll back: the way back to an older version, not red either.
    await ok('POST', '/v2/prompts/rollout/deployments', { environment: 'production', version: 3 });
    await page.reload();
    expect(await background(deployments.getByRole('button', { name: 'Roll back production to v2', exact: true }))).not.toBe(DANGER);
  });

  it('usage split by model labels each series with the provider and model the API returned', async () => {
    // The playground runs above were calls of local/echo.
    const report = (await ok('GET', `/v2/usage?from=${new Date(Date.now() - 86_400_000).toISOString()}&group_by=provider,model`)).data as {
      provider: string;
      model: string;
    }[];
    expect(report.map((row) => `${row.provider}/${row.model}`)).toContain('local/echo');
    await page.goto(`${server.url}/console/usage?group=model`);
    expect(await picker('Split by').innerText()).toContain('model');
    const table = page.getByRole('table');
    await table.locator('tbody tr').first().waitFor();
    // Every call of this project was one of local/echo: one series, named by both.
    expect([...new Set(await table.locator('tbody td:nth-child(2)').allTextContents())]).toEqual(['local/echo']);
    expect(await table.getByRole('columnheader', { name: 'provider/model', exact: true }).count()).toBe(1);
  });
});
