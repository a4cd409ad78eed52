import type { Locator, Page } from 'playwright-core';

import type { FakeUpstream } from '../../test/fakes/fake-openai-upstream';
import type { SpawnedServer } from '../../test/support/spawn-server';
import { Browser, callApi, launchBrowser, screenshot, seriousViolations, signIn } from './browser';
import { CONSOLE_TESTS_SECRET_KEY, ConsoleServer, startConsoleServer } from './console-server';
import { COMPANY, PLAYGROUND_RUN, seedShowcase, startShowcaseUpstream, SUPPORT_PROMPT, V2_SYSTEM } from './showcase';

/**
 * The playground for people as well as developers (docs/console.md, "Playground"), in chromium on
 * the showcase project (showcase.ts: the support prompt's versions 1 and 2 on a fake OpenAI-compatible
 * upstream): the template edited chat-style (add, reorder with the keyboard, remove, change a role)
 * and as JSON (both ways, a broken JSON kept and shown as a problem), a parameter changed with its
 * slider and number field, a variable's field appearing as it is typed, and the draft compared side
 * by side with versions 1 and 2 and with the draft on the local provider's `echo` model; what each
 * column shows, then the logs and the upstream's requests through the API.
 */
describe(`console: playground (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let server: SpawnedServer;
  let running: ConsoleServer | undefined;
  let upstream: FakeUpstream;
  let browser: Browser;
  let page: Page;
  let projectKey: string;

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await callApi(server.url, projectKey, method, path, body);
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const main = () => page.getByRole('main');
  const replaceText = async (name: string, text: string) => {
    await page.getByRole('textbox', { name, exact: true }).click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(text);
  };
  const editorText = (name: string) => page.getByRole('textbox', { name, exact: true }).innerText();
  /** The cards' editors, in order: what a person reads down the list. */
  const cards = async () => {
    const items = main().getByRole('list', { name: 'Template messages' }).getByRole('listitem');
    const out: string[] = [];
    for (const item of await items.all()) out.push((await item.getByRole('textbox').getAttribute('aria-label'))!);
    return out;
  };
  const chooseRole = async (n: number, role: string) => {
    await main()
      .getByRole('button', { name: `Role of message ${n}` })
      .click();
    await page.getByRole('option', { name: role, exact: true }).click();
  };
  const parametersJson = async () => JSON.parse(await editorText('Parameters (JSON)'));
  /** Polls `read` until `done` holds of it or 10 s passed; returns the last value read. */
  const settled = async <T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> => {
    let value = await read();
    for (let waited = 0; waited < 10_000 && !done(value); waited += 100) {
      await page.waitForTimeout(100);
      value = await read();
    }
    return value;
  };
  /** The suggestions the browser offers under a field (its `<datalist>`). */
  const suggestions = (label: string) =>
    page
      .getByLabel(label, { exact: true })
      .evaluate((input) => [...(input as any).list.options].map((option: any) => option.value as string));
  const isFocused = (locator: Locator) => locator.evaluate((el) => el === (el.ownerDocument as any).activeElement);
  const noSeriousViolations = async (screen: string) =>
    expect({ screen, violations: await seriousViolations(page) }).toEqual({ screen, violations: [] });

  beforeAll(async () => {
    upstream = await startShowcaseUpstream();
    running = await startConsoleServer({
      PARLEY_SECRET_KEY: CONSOLE_TESTS_SECRET_KEY,
      PROVIDER_ALLOWED_HOSTS: `127.0.0.1:${new URL(upstream.url).port}`,
    });
    server = running.server;
    projectKey = running.projectKey;
    await seedShowcase(server.url, projectKey, upstream.url);
    browser = await launchBrowser();
    page = browser.page;
    await signIn(page, server.url, projectKey);
    await page.goto(`${server.url}/console/prompts/${SUPPORT_PROMPT}/playground?from=2`);
    await page.getByText('Editing a draft based on v2.').waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await running?.stop();
    await upstream?.close();
  });

  it('edits the template chat-style: adds, reorders with the keyboard, changes a role, removes; a variable typed gets its field', async () => {
    expect(await cards()).toEqual(['Template message 1 (system)']);
    expect(await editorText('Template message 1 (system)')).toBe(V2_SYSTEM);

    await main().getByRole('button', { name: 'Add a message' }).click();
    await replaceText('Template message 2 (user)', 'My order {{order_id}} has not arrived.');
    // The variable's field appears as it is typed, beside those of version 2 (its defaults filled in).
    await page.getByLabel('Variable order_id').waitFor();
    expect(await page.getByLabel('Variable company').inputValue()).toBe(COMPANY);
    expect(await page.getByLabel('Variable plan').inputValue()).toBe('Standard');

    await main().getByRole('button', { name: 'Add a message' }).click();
    await replaceText('Template message 3 (assistant)', 'Sorry to hear that! Let me check order {{order_id}}.');
    await chooseRole(3, 'user');
    await chooseRole(3, 'assistant');
    expect(await cards()).toEqual(['Template message 1 (system)', 'Template message 2 (user)', 'Template message 3 (assistant)']);

    // With the keyboard: the moved card keeps the focus, and the move is announced.
    const up = main().getByRole('button', { name: 'Move message 3 up' });
    await up.focus();
    await page.keyboard.press('Enter');
    expect(await cards()).toEqual(['Template message 1 (system)', 'Template message 2 (assistant)', 'Template message 3 (user)']);
    expect(await isFocused(main().getByRole('button', { name: 'Move message 2 up' }))).toBe(true);
    await main().getByRole('status').filter({ hasText: 'Message 3 moved to 2.' }).waitFor({ state: 'attached' });
    await page.keyboard.press('Enter');
    expect(await cards()).toEqual(['Template message 1 (assistant)', 'Template message 2 (system)', 'Template message 3 (user)']);
    await page.keyboard.press('Enter');
    await main().getByRole('status').filter({ hasText: 'Message 1 is already the first.' }).waitFor({ state: 'attached' });
    await main().getByRole('button', { name: 'Move message 1 down' }).click();
    expect(await cards()).toEqual(['Template message 1 (system)', 'Template message 2 (assistant)', 'Template message 3 (user)']);

    await main().getByRole('button', { name: 'Remove message 2' }).click();
    expect(await cards()).toEqual(['Template message 1 (system)', 'Template message 2 (user)']);
    expect(await editorText('Template message 2 (user)')).toBe('My order {{order_id}} has not arrived.');
    await screenshot(page, 'playground-messages');
    await noSeriousViolations('playground: messages as cards');
  });

  it('shows the same messages as JSON; an edit there shows in the cards; broken JSON is kept and shown as a problem', async () => {
    await main().getByRole('tab', { name: 'As JSON' }).click();
    const json = JSON.parse(await editorText('Template messages (JSON)'));
    expect(json).toEqual([
      { role: 'system', content: V2_SYSTEM },
      { role: 'user', content: 'My order {{order_id}} has not arrived.' },
    ]);

    const edited = [...json, { role: 'assistant', content: 'Checking order {{order_id}} for {{customer_name}}.' }];
    await replaceText('Template messages (JSON)', JSON.stringify(edited, null, 2));
    await replaceText('Template messages (JSON)', '[{"role": "user", "content": "unfinished');
    const problem = main().getByRole('alert');
    await problem.getByText(/^Not valid JSON: /).waitFor();
    expect(await main().getByRole('tab', { name: 'As chat' }).getAttribute('aria-disabled')).toBe('true');
    expect(await editorText('Template messages (JSON)')).toBe('[{"role": "user", "content": "unfinished');
    await noSeriousViolations('playground: a JSON problem');
    // Running now would use the last valid messages: the run refuses and says why.
    await main().getByRole('button', { name: 'Run without saving' }).click();
    await page
      .getByRole('region', { name: 'Draft output' })
      .getByText(/The template's JSON has a problem: Not valid JSON/)
      .waitFor();

    await main().getByRole('button', { name: 'Discard the JSON edits' }).click();
    expect(JSON.parse(await editorText('Template messages (JSON)'))).toEqual(edited);
    await main().getByRole('tab', { name: 'As chat' }).click();
    expect(await cards()).toEqual(['Template message 1 (system)', 'Template message 2 (user)', 'Template message 3 (assistant)']);
    expect(await editorText('Template message 3 (assistant)')).toBe('Checking order {{order_id}} for {{customer_name}}.');
  });

  it("changes parameters with the controls the server describes for the provider's type, and suggests its models", async () => {
    expect(await parametersJson()).toEqual({ temperature: 0.3, max_tokens: 300 });
    const temperature = main().getByRole('slider', { name: 'temperature' });
    await temperature.focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    expect(await settled(parametersJson, (p) => p.temperature !== 0.3)).toEqual({ temperature: 0.4, max_tokens: 300 });
    await page.getByLabel('max_tokens', { exact: true }).fill('120');
    await page.keyboard.press('Tab');
    expect(await settled(parametersJson, (p) => p.max_tokens === 120)).toEqual({ temperature: 0.4, max_tokens: 120 });
    // A parameter left unset says what the provider does without it; setting it from its picker adds it.
    expect(await main().getByRole('slider', { name: 'top_p' }).getAttribute('aria-valuetext')).toBe('1');
    await main().getByRole('button', { name: 'Unset max_tokens' }).click();
    expect(await settled(parametersJson, (p) => !('max_tokens' in p))).toEqual({ temperature: 0.4 });
    await page.getByLabel('max_tokens', { exact: true }).fill('200');
    await page.keyboard.press('Tab');
    expect(await settled(parametersJson, (p) => p.max_tokens === 200)).toEqual({ temperature: 0.4, max_tokens: 200 });

    // The model's suggestions: those the project calls through this provider (GET /v1/models).
    expect(await suggestions('Model')).toEqual(['gpt-4o-mini']);
    expect(await page.getByLabel('Model', { exact: true }).inputValue()).toBe('gpt-4o-mini');
    await noSeriousViolations('playground: parameter controls');
  });

  it('compares the draft with versions 2 and 1 and with the draft on local/echo, side by side, each with its own variables', async () => {
    await page.getByLabel('Variable customer_name').fill(PLAYGROUND_RUN.variables.customer_name);
    await page.getByLabel('Variable order_id').fill('4812');
    await replaceText('Messages (JSON)', JSON.stringify([{ role: 'user', content: PLAYGROUND_RUN.question }]));
    for (const version of ['v2', 'v1']) {
      await main()
        .locator('label.checkbox')
        .filter({ hasText: `saved ${version}` })
        .click();
      expect(
        await main()
          .getByRole('checkbox', { name: new RegExp(`^saved ${version}`) })
          .isChecked(),
      ).toBe(true);
    }
    expect(await suggestions('Compare on provider')).toEqual(['local', 'openai']);
    await page.getByLabel('Compare on provider', { exact: true }).fill('local');
    expect(await suggestions('Compare on model')).toEqual(['echo']);
    await page.getByLabel('Compare on model', { exact: true }).fill('echo');
    await main().getByRole('button', { name: 'Add this model' }).click();
    await main().getByRole('list', { name: 'Models compared' }).getByText('Draft on local/echo').waitFor();
    const before = upstream.requests.length;
    await main().getByRole('button', { name: 'Run without saving' }).click();

    const column = (title: string) => page.getByRole('region', { name: `${title} output` });
    const titles = ['Draft', 'Saved v2', 'Saved v1', 'Draft on local/echo'];
    expect(
      await main()
        .locator('.compare-grid > section')
        .evaluateAll((els) => els.map((el) => el.getAttribute('aria-label'))),
    ).toEqual(titles.map((t) => `${t} output`));
    for (const title of titles) await column(title).getByRole('definition').first().waitFor();
    // The fake upstream answers the question; the echo model repeats it.
    for (const title of titles.slice(0, 3)) await column(title).getByText(PLAYGROUND_RUN.answer).waitFor();
    await column('Draft on local/echo').locator('.bubble').getByText(PLAYGROUND_RUN.question, { exact: true }).waitFor();
    const facts = async (title: string) => {
      const list = column(title).getByRole('definition');
      return { served: await list.nth(0).innerText(), tokens: await list.nth(2).innerText(), cost: await list.nth(3).innerText() };
    };
    expect(await facts('Draft')).toMatchObject({ served: 'v2 · openai/gpt-4o-mini', tokens: expect.stringMatching(/^\d+ in, \d+ out$/) });
    expect(await facts('Saved v2')).toMatchObject({ served: 'v2 · openai/gpt-4o-mini' });
    expect(await facts('Saved v1')).toMatchObject({ served: 'v1 · openai/gpt-4o', cost: expect.stringMatching(/^\$0\.\d+$/) });
    expect(await facts('Draft on local/echo')).toMatchObject({ served: 'v2 · local/echo' });
    for (const title of titles)
      expect(
        await column(title)
          .getByText(/^\d[\d,]* ms/)
          .count(),
      ).toBe(1);
    const sent = async (title: string) =>
      (await column(title).getByText('Variables sent:').locator('..').innerText()).replace(/^Variables sent: /, '');
    expect(await sent('Draft')).toBe('company, customer_name, order_id, plan');
    expect(await sent('Saved v2')).toBe('customer_name');
    expect(await sent('Saved v1')).toBe('none');
    expect(await sent('Draft on local/echo')).toBe('company, customer_name, order_id, plan');
    await screenshot(page, 'playground-compare');
    await noSeriousViolations('playground: compared side by side');

    // The logs: one call per column, each with its version, provider, model and variables (no order_id but the draft's).
    const logs = (await api('GET', `/v2/logs?slug=${SUPPORT_PROMPT}&limit=4`)).data as Array<Record<string, any>>;
    const seen = logs.map((log) => [
      log.version,
      log.provider,
      log.model,
      JSON.parse(log.variables ?? '{}'),
      JSON.parse(log.metadata ?? '{}').source ?? null,
    ]);
    const draftVariables = { company: COMPANY, customer_name: 'Lena Fischer', order_id: '4812', plan: 'Standard' };
    expect(seen).toEqual(
      expect.arrayContaining([
        [2, 'openai', 'gpt-4o-mini', draftVariables, 'console-playground'],
        // A log holds the variables as rendered: those its column sent, and its version's own defaults for the rest.
        [2, 'openai', 'gpt-4o-mini', { company: COMPANY, customer_name: 'Lena Fischer', plan: 'Standard' }, 'console-playground'],
        [1, 'openai', 'gpt-4o', { company: COMPANY }, 'console-playground'],
        [2, 'local', 'echo', draftVariables, 'console-playground'],
      ]),
    );
    // The draft's template and parameters went with the draft's column (and the echo's), saved v2 kept its own.
    const sentUp = upstream.requests.slice(before).map((r) => r.body as Record<string, any>);
    const byTemperature = (t: number) => sentUp.filter((body) => body.temperature === t);
    expect(byTemperature(0.4).map((body) => [body.model, body.max_tokens, body.messages.length])).toEqual([['gpt-4o-mini', 200, 4]]);
    expect(byTemperature(0.3).map((body) => [body.model, body.max_tokens, body.messages.length])).toEqual([['gpt-4o-mini', 300, 2]]);
    expect(byTemperature(0.7).map((body) => [body.model, body.messages.length])).toEqual([['gpt-4o', 2]]);
  });

  it('fits a phone: at 390 px each column is as wide as the screen allows, one under the other', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      const boxes = await main()
        .locator('.compare-grid > section')
        .evaluateAll((els) => els.map((el) => el.getBoundingClientRect().toJSON()));
      expect(boxes).toHaveLength(4);
      for (const box of boxes) expect(box.right).toBeLessThanOrEqual(390);
      expect(new Set(boxes.map((box: { left: number }) => Math.round(box.left))).size).toBe(1);
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }
  });
});
