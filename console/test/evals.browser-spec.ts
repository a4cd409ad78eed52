import type { Locator, Page } from 'playwright-core';

import type { FakeUpstream } from '../../test/fakes/fake-openai-upstream';
import type { SpawnedServer } from '../../test/support/spawn-server';
import { Browser, callApi, launchBrowser, screenshot, seriousViolations, signIn } from './browser';
import { CONSOLE_TESTS_SECRET_KEY, ConsoleServer, startConsoleServer } from './console-server';
import { NEWEST_TICKET, seedShowcase, startShowcaseUpstream, SUPPORT_PROMPT } from './showcase';
import {
  BROKEN_JSONL,
  CUSTOMS,
  DATASET,
  DATASET_DESCRIPTION,
  DATASET_JSONL,
  FAST_ENOUGH,
  MENTIONS_EXPECTED,
  STALLED_MODEL,
} from './showcase-evals';

/**
 * The evaluation screens in chromium against a real Parley process (docs/console.md,
 * "Evaluations"), on the showcase project: a dataset made and imported in the console, a call added
 * to it from its log, a grader made in the form, two experiment runs started from the prompt page
 * (version 1, then the version live in production) and compared, the regression listed first; a
 * deploy the gate refuses; a run of an unsaved playground draft; a thread turn added to the dataset;
 * a run followed while it runs, and cancelled.
 * Each step checks what the screen says and what the server holds; the pictures go to docs/console/.
 */
describe(`evaluations in the console (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let server: SpawnedServer;
  let running: ConsoleServer | undefined;
  let upstream: FakeUpstream;
  let threadId: string;
  let browser: Browser;
  let page: Page;
  let projectKey: string;
  const runs: { v1?: string; live?: string } = {};

  const api = (method: string, path: string, body?: unknown) => callApi(server.url, projectKey, method, path, body);
  /** Saved as docs/console/<name>.png, and axe-core finds no serious or critical violation on it. */
  const pictured = async (name: string, { fullPage = true } = {}) => {
    await screenshot(page, name, { fullPage });
    expect({ screen: name, violations: await seriousViolations(page) }).toEqual({ screen: name, violations: [] });
  };
  const choose = async (label: string, option: string | RegExp, within: Locator = page.getByRole('main')) => {
    await within
      .locator('.field')
      .filter({ has: page.getByText(label, { exact: true }) })
      .getByRole('button')
      .click();
    await page.getByRole('option', { name: option, exact: typeof option === 'string' }).click();
  };
  const nav = (name: string) => page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true });
  const runIdOfUrl = () => /\/evals\/runs\/([0-9a-f-]{36})$/.exec(page.url())![1];
  /** Starts a run from the prompt page's launcher; answers its id once its screen says it completed. */
  const launchFromPromptPage = async (what: string) => {
    await page.goto(`${server.url}/console/prompts/${SUPPORT_PROMPT}`);
    await page.getByRole('button', { name: 'Run an experiment' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('option', { name: /mentions-expected/ }).waitFor();
    await choose('Run', what, dialog);
    return dialog;
  };
  const completed = async () => {
    await page.waitForURL(/\/evals\/runs\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { level: 1 }).getByText('completed', { exact: true }).waitFor();
    await page.getByText('5 of 5 items done').waitFor();
    return runIdOfUrl();
  };
  const rowText = (name: string | RegExp) => page.getByRole('row', { name }).first().textContent();

  beforeAll(async () => {
    upstream = await startShowcaseUpstream();
    running = await startConsoleServer({
      PARLEY_SECRET_KEY: CONSOLE_TESTS_SECRET_KEY,
      PROVIDER_ALLOWED_HOSTS: `127.0.0.1:${new URL(upstream.url).port}`,
    });
    server = running.server;
    projectKey = running.projectKey;
    threadId = (await seedShowcase(server.url, projectKey, upstream.url)).threadId;
    const { name, ...grader } = MENTIONS_EXPECTED;
    expect((await api('PUT', `/v2/graders/${name}`, grader)).status).toBe(200);
    browser = await launchBrowser();
    page = browser.page;
    await signIn(page, server.url, projectKey);
  });
  afterAll(async () => {
    await browser?.close();
    await running?.stop();
    await upstream?.close();
  });

  it('creates a dataset and imports a JSONL file; a broken file is refused line by line and imports nothing', async () => {
    await nav('Datasets').click();
    await page.getByRole('heading', { name: 'No datasets yet' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill(DATASET);
    await page.getByLabel('Description (optional)').fill(DATASET_DESCRIPTION);
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { level: 1 }).getByText(DATASET).waitFor();

    const file = page.getByLabel('File', { exact: true });
    await file.setInputFiles({ name: 'broken.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(BROKEN_JSONL) });
    await page.getByRole('button', { name: 'Import' }).click();
    const problems = page.getByRole('alert');
    await problems.getByText('Nothing was imported from broken.jsonl').waitFor();
    const lines = await problems.getByRole('listitem').allTextContents();
    expect(lines).toEqual([expect.stringMatching(/^line 2: variables\.customer name: /), 'line 3: not a JSON object']);
    await pictured('dataset-import-problems');
    expect((await api('GET', `/v2/datasets/${DATASET}`)).body).toMatchObject({ version: 0, itemCount: 0 });

    await file.setInputFiles({ name: 'support-questions.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(DATASET_JSONL) });
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByRole('status').getByText(`Imported 4 items: ${DATASET} is now at version 1 (4 items).`).waitFor();
    await page.getByRole('table').getByText(`user: ${CUSTOMS.question}`, { exact: true }).waitFor();
    expect((await api('GET', `/v2/datasets/${DATASET}`)).body).toMatchObject({ version: 1, itemCount: 4 });
  });

  it("adds a production call to the dataset from its log, edits the item's expected output, and browses the older version", async () => {
    await page.goto(`${server.url}/console/logs?slug=${SUPPORT_PROMPT}&environment=production`);
    await page.getByRole('table').getByRole('link').first().click();
    await page.getByRole('list', { name: 'Response' }).getByText(NEWEST_TICKET.answer).waitFor();
    const logId = /\/logs\/([0-9a-f-]{36})$/.exec(page.url())![1];
    await page.getByRole('button', { name: 'Add to dataset' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('checkbox', { name: 'Keep the answer as the expected output' }).waitFor();
    expect(await dialog.getByRole('checkbox').isChecked()).toBe(true);
    await dialog.getByRole('button', { name: `Add to ${DATASET}` }).click();
    await dialog.getByText(`Added to ${DATASET}: it is now at version 2, with 5 items.`).waitFor();
    await pictured('add-to-dataset', { fullPage: false });
    const items = (await api('GET', `/v2/datasets/${DATASET}/items`)).body;
    const fromLog = items.data.find((item: { source: { logId?: string } | null }) => item.source?.logId === logId);
    expect(fromLog).toMatchObject({ expected: NEWEST_TICKET.answer, variables: NEWEST_TICKET.variables, sinceVersion: 2 });

    // The whole answer is too strict an expectation: the item only needs to name the new delivery day.
    await dialog.getByRole('link', { name: `Open ${DATASET}` }).click();
    const row = page.getByRole('row').filter({ hasText: NEWEST_TICKET.question });
    await row.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('dialog').getByRole('textbox', { name: 'Expected' }).fill('Thursday');
    await page.getByRole('dialog').getByRole('button', { name: 'Save as a new version' }).click();
    await page.getByRole('status').getByText('Saved the item: the dataset is now at version 3.').waitFor();
    await row.getByRole('cell', { name: 'Thursday', exact: true }).waitFor();
    expect((await api('GET', `/v2/datasets/${DATASET}/items/${fromLog.id}`)).body).toMatchObject({ expected: 'Thursday', sinceVersion: 3 });

    await choose('Version', /^v1 · 4 items/);
    await page.getByRole('note').getByText('Version 1 as it was (read-only)').waitFor();
    await page.getByRole('heading', { name: 'Items of v1' }).waitFor();
    await page.getByRole('table').waitFor();
    expect(await page.getByRole('table').getByRole('row').count()).toBe(5);
    expect(await page.getByRole('button', { name: 'Edit' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Show the current version' }).click();
    await page.getByRole('heading', { name: 'Items of v3' }).waitFor();
    expect(await page.getByRole('table').getByRole('row').count()).toBe(6);
    await pictured('dataset');
    await nav('Datasets').click();
    await page.getByRole('cell', { name: 'v3', exact: true }).waitFor();
    await pictured('datasets');
  });

  it('creates a grader in the form: its type, threshold and check listed', async () => {
    await nav('Graders').click();
    await page.getByRole('cell', { name: MENTIONS_EXPECTED.name, exact: true }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill(FAST_ENOUGH.name);
    await choose('Type', 'latency');
    expect(JSON.parse(await page.getByRole('textbox', { name: 'Config (JSON, without “type”)' }).inputValue())).toEqual({ maxMs: 5000 });
    await page.getByRole('button', { name: 'Create the grader' }).click();
    await page.getByRole('cell', { name: FAST_ENOUGH.name, exact: true }).waitFor();
    expect(await rowText(new RegExp(`^${FAST_ENOUGH.name}`))).toContain('latency');
    expect((await api('GET', `/v2/graders/${FAST_ENOUGH.name}`)).body).toMatchObject({
      type: 'latency',
      threshold: 1,
      config: FAST_ENOUGH.config,
    });
    await pictured('graders');
  });

  it('launches a run of version 1 from the prompt page and follows it to the end: scores per grader, usage, items', async () => {
    const dialog = await launchFromPromptPage('v1 — First version');
    await dialog.getByRole('option', { name: /fast-enough/ }).waitFor();
    expect(await dialog.getByRole('option', { selected: true }).count()).toBe(2);
    await pictured('experiment-launcher', { fullPage: false });
    await dialog.getByRole('button', { name: 'Start the run' }).click();
    runs.v1 = await completed();
    expect(await rowText(/^mentions-expected/)).toMatch(/contains.*0\.60.*60 % \(3 of 5\)/);
    expect(await rowText(/^fast-enough/)).toMatch(/latency.*1\.00.*100 % \(5 of 5\)/);
    expect(await page.getByRole('link', { name: 'log of this call' }).count()).toBe(5);
    await page.getByText(CUSTOMS.answers['gpt-4o'], { exact: true }).waitFor();
    await pictured('experiment-run');
    const run = (await api('GET', `/v2/evals/runs/${runs.v1}`)).body;
    expect(run).toMatchObject({ status: 'completed', target: { type: 'version', prompt: SUPPORT_PROMPT, version: 1 } });
    expect(run.progress).toMatchObject({ total: 5, completed: 5, passed: 3 });
    expect(run.dataset).toEqual({ name: DATASET, version: 3 });
  });

  it("refuses a deploy through the environment's gate, the message and each missing score shown", async () => {
    const gate = { dataset: DATASET, minScores: { [MENTIONS_EXPECTED.name]: 0.7 } };
    expect((await api('PUT', '/v2/environments/staging/gate', gate)).status).toBe(200);
    await page.goto(`${server.url}/console/prompts/${SUPPORT_PROMPT}`);
    // The picker shows production once the environments have loaded (one opened before lists nothing).
    const environment = page.getByRole('button', { name: 'Environment for v1' });
    await environment.getByText('production', { exact: true }).waitFor();
    await environment.click();
    await page.getByRole('option', { name: 'staging', exact: true }).click();
    await page.getByRole('button', { name: 'Deploy v1' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Deploy to staging' }).click();
    const refusal = page.getByRole('alert');
    await refusal.getByText(`The deploy gate of "staging" refused ${SUPPORT_PROMPT} v1`).waitFor();
    expect(await refusal.getByRole('listitem').allTextContents()).toEqual([
      `grader "mentions-expected": mean score 0.6 in run ${runs.v1} is below 0.7`,
    ]);
    await pictured('deploy-gate-refused');
    const prompt = (await api('GET', `/v2/prompts/${SUPPORT_PROMPT}`)).body;
    expect(prompt.deployments.find((d: { environment: string }) => d.environment === 'staging').version).toBe(2);
    expect((await api('DELETE', '/v2/environments/staging/gate')).status).toBe(200);
  });

  it('runs the version live in production, then compares the two runs: the regression first, both answers shown', async () => {
    const dialog = await launchFromPromptPage('live in production (v2)');
    await dialog.getByRole('button', { name: 'Start the run' }).click();
    runs.live = await completed();
    expect(await rowText(/^mentions-expected/)).toMatch(/0\.80.*80 % \(4 of 5\)/);
    expect((await api('GET', `/v2/evals/runs/${runs.live}`)).body.target).toMatchObject({ version: 2, environment: 'production' });

    await page.goto(`${server.url}/console/prompts/${SUPPORT_PROMPT}`);
    await page.getByRole('link', { name: `${SUPPORT_PROMPT} v1 on ${DATASET} v3` }).waitFor();
    // The newest run is the candidate, the one before it the base.
    await page.getByRole('link', { name: 'Compare the two runs' }).click();
    await page.waitForURL(new RegExp(`/evals/runs/${runs.live}/compare/${runs.v1}$`));
    await page.getByRole('heading', { name: 'Regressed (1)' }).waitFor();
    const counts = async (name: string) => page.locator('.stats > .stat').filter({ hasText: name }).locator('dd').textContent();
    expect([await counts('Regressed'), await counts('Improved'), await counts('Unchanged')]).toEqual(['1', '2', '2']);
    expect(await rowText(/^mentions-expected/)).toMatch(/0\.60.*0\.80.*\+0\.20/);
    // Regressions first: the first item on the page is the customs question, with both answers and scores.
    const first = page.locator('.compared-item').first();
    await page.getByRole('list', { name: 'Improved items' }).getByRole('listitem').nth(1).waitFor();
    await first.getByText(CUSTOMS.question, { exact: true }).waitFor();
    await first.getByText(CUSTOMS.answers['gpt-4o']).waitFor();
    await first.getByText(CUSTOMS.answers['gpt-4o-mini']).waitFor();
    expect(await first.getByText('✗ failed').count()).toBe(1);
    const headings = await page.getByRole('heading', { level: 2 }).allTextContents();
    expect(headings.filter((h) => /^(Regressed|Improved|Unchanged) \(/.test(h))).toEqual([
      'Regressed (1)',
      'Improved (2)',
      'Unchanged (2)',
    ]);
    await pictured('run-comparison');
    const compared = (await api('GET', `/v2/evals/runs/${runs.live}/compare/${runs.v1}`)).body;
    expect(compared.counts).toMatchObject({ regressed: 1, improved: 2, unchanged: 2 });

    await nav('Experiments').click();
    await page.getByRole('link', { name: `${SUPPORT_PROMPT} v2 on ${DATASET} v3` }).waitFor();
    await pictured('experiment-runs');
  });

  it('admits through the gate a version with a passing run, after refusing one without; both outcomes audited', async () => {
    // An environment neither version served yet, so neither passes as a rollback.
    expect((await api('POST', '/v2/environments', { slug: 'canary' })).status).toBe(200);
    const gate = { dataset: DATASET, minScores: { [MENTIONS_EXPECTED.name]: 0.7 } };
    expect((await api('PUT', '/v2/environments/canary/gate', gate)).status).toBe(200);
    const deployTo = async (version: number) => {
      await page.goto(`${server.url}/console/prompts/${SUPPORT_PROMPT}`);
      const environment = page.getByRole('button', { name: `Environment for v${version}` });
      await environment.getByText('production', { exact: true }).waitFor();
      await environment.click();
      await page.getByRole('option', { name: 'canary', exact: true }).click();
      await page.getByRole('button', { name: `Deploy v${version}` }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Deploy to canary' }).click();
    };
    await deployTo(1);
    await page.getByRole('alert').getByText(`The deploy gate of "canary" refused ${SUPPORT_PROMPT} v1`).waitFor();
    await deployTo(2);
    // Admitted: the prompt page lists v2 live in canary.
    await page.getByRole('alert').waitFor({ state: 'detached' });
    const canary = async () =>
      (await api('GET', `/v2/prompts/${SUPPORT_PROMPT}`)).body.deployments.find((d: { environment: string }) => d.environment === 'canary');
    for (let i = 0; i < 50 && !(await canary()); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await canary()).version).toBe(2);
    const audit = (await api('GET', '/v2/audit?action=deployment.gate_checked')).body.data.filter(
      (event: { resourceId: string }) => event.resourceId === `${SUPPORT_PROMPT}@canary`,
    );
    expect(
      audit.map((event: { after: Record<string, unknown> }) => [event.after.outcome, event.after.version, event.after.run ?? null]),
    ).toEqual([
      ['passed', 2, runs.live],
      ['refused', 1, runs.v1],
    ]);
    expect((await api('DELETE', '/v2/environments/canary/gate')).status).toBe(200);
  });

  it("runs an experiment on the playground's unsaved draft", async () => {
    await page.goto(`${server.url}/console/prompts/${SUPPORT_PROMPT}/playground`);
    await page.getByText('Editing a draft based on v2.').waitFor();
    await page.getByRole('button', { name: 'Run an experiment on this draft' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('option', { name: /mentions-expected/ }).waitFor();
    await dialog.getByRole('button', { name: 'Start the run' }).click();
    const id = await completed();
    await page.getByText(`draft of ${SUPPORT_PROMPT} on`).waitFor();
    const run = (await api('GET', `/v2/evals/runs/${id}`)).body;
    expect(run.target).toMatchObject({ type: 'draft', prompt: SUPPORT_PROMPT, draft: { provider: 'openai', model: 'gpt-4o-mini' } });
    expect(run.graders.find((g: { name: string }) => g.name === 'mentions-expected').meanScore).toBe(0.8);
  });

  it("adds a thread's turn to the dataset from its transcript", async () => {
    await page.goto(`${server.url}/console/threads/${threadId}`);
    await page.getByRole('button', { name: 'Add turn to dataset' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: `Add to ${DATASET}` }).click();
    await dialog.getByText(`Added to ${DATASET}: it is now at version 4, with 6 items.`).waitFor();
    const items = (await api('GET', `/v2/datasets/${DATASET}/items`)).body.data;
    expect(items.filter((item: { source: { threadId?: string } | null }) => item.source?.threadId === threadId)).toHaveLength(1);
  });

  it('follows a run while it runs, and cancels it', async () => {
    // A draft on a model that never answers: the run stays running, its items in flight, until cancelled.
    await page.goto(`${server.url}/console/prompts/${SUPPORT_PROMPT}/playground`);
    await page.getByText('Editing a draft based on v2.').waitFor();
    await page.getByLabel('Model', { exact: true }).fill(STALLED_MODEL);
    await page.getByRole('button', { name: 'Run an experiment on this draft' }).click();
    await page
      .getByRole('dialog')
      .getByRole('option', { name: /mentions-expected/ })
      .waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Start the run' }).click();
    await page.waitForURL(/\/evals\/runs\/[0-9a-f-]{36}$/);
    const id = runIdOfUrl();
    const heading = page.getByRole('heading', { level: 1 });
    await heading.getByText('running', { exact: true }).waitFor();
    await page.getByText('0 of 6 items done · 0 passed every grader · following the run…').waitFor();
    await page.getByRole('button', { name: 'Cancel the run' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Cancel the run' }).click();
    await heading.getByText('cancelled', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Cancel the run' }).count()).toBe(0);
    const run = (await api('GET', `/v2/evals/runs/${id}`)).body;
    expect(run).toMatchObject({ status: 'cancelled', progress: { total: 6, completed: 0 } });
  });
});
