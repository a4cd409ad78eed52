import type { Locator, Page } from 'playwright-core';

import type { FakeUpstream } from '../../test/fakes/fake-openai-upstream';
import type { SpawnedServer } from '../../test/support/spawn-server';
import { type ArmResult, feedbackText, type Results } from '../src/screens/split/split-plan';
import { Browser, callApi, launchBrowser, screenshot, seriousViolations, signIn } from './browser';
import { CONSOLE_TESTS_SECRET_KEY, ConsoleServer, startConsoleServer } from './console-server';
import { startShowcaseUpstream } from './showcase';
import { ORDER_PROMPT, ORDER_QUESTIONS, ORDER_V1, ORDER_V2 } from './showcase-experiments';

/**
 * A live experiment in chromium against a real Parley process (docs/console.md, "Splits"): a prompt
 * with two versions made through the API, a 50/50 split set up in the console, calls driven through
 * the API, feedback sent through the API and in the console on a log, the per-arm means following
 * both; an arm stopped and resumed, then the winner promoted in the console. Each step checks what
 * the screen says and what the API holds afterwards; the pictures go to docs/console/experiments-*.png.
 */
describe(`live experiments in the console (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let server: SpawnedServer;
  let running: ConsoleServer | undefined;
  let upstream: FakeUpstream;
  let browser: Browser;
  let page: Page;
  let projectKey: string;
  /** The log ids of the calls each arm served, by version (the `x-parley-version` of each answer). */
  const served: Record<number, string[]> = { 1: [], 2: [] };
  const PRODUCTION = 'production';

  const api = (method: string, path: string, body?: unknown) => callApi(server.url, projectKey, method, path, body);
  /** One call of the prompt in production through the spec's invoke route: the version that answered, and its log. */
  const invoke = async (i: number) => {
    const question = ORDER_QUESTIONS[i % ORDER_QUESTIONS.length].question;
    const res = await api('POST', `/default/default/${ORDER_PROMPT}/${PRODUCTION}`, { messages: [{ role: 'user', content: question }] });
    expect(res.status).toBe(200);
    return { version: Number(res.headers.get('x-parley-version')), logId: res.headers.get('x-parley-log-id')! };
  };
  const results = async (): Promise<Results> => {
    const res = await api('GET', `/v2/prompts/${ORDER_PROMPT}/deployments/${PRODUCTION}/results`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const current = async () => {
    const res = await api('GET', `/v2/deployments?slug=${ORDER_PROMPT}&environment=${PRODUCTION}`);
    expect(res.body.data).toHaveLength(1);
    return res.body.data[0];
  };
  /** Saved as docs/console/<name>.png, and axe-core finds no serious or critical violation on it. */
  const pictured = async (name: string, { fullPage = true } = {}) => {
    await screenshot(page, name, { fullPage });
    expect({ screen: name, violations: await seriousViolations(page) }).toEqual({ screen: name, violations: [] });
  };
  const splitScreen = `/console/prompts/${ORDER_PROMPT}/split/${PRODUCTION}`;
  const arm = (version: number): Locator =>
    page.locator('table.arms tbody tr').filter({ has: page.getByRole('link', { name: `v${version}: its logs in ${PRODUCTION}` }) });
  /** An arm's cells: weight, calls, error rate, latency, cost per call, feedback, actions. */
  const cell = (version: number, column: number) => arm(version).getByRole('cell').nth(column);
  const feedbackOf = (a: ArmResult | undefined, name: string) => a?.feedback.find((f) => f.name === name);
  const refresh = () => page.getByRole('button', { name: 'Refresh now' }).click();
  /** The deploy dialog's confirming button, then the screen's "Deployed: …" once the deployment is made. */
  const confirm = async (button: string, deployed: string) => {
    await page.getByRole('alertdialog').getByRole('button', { name: button }).click();
    await page.getByRole('status').getByText(deployed).waitFor();
  };

  beforeAll(async () => {
    upstream = await startShowcaseUpstream();
    running = await startConsoleServer({
      PARLEY_SECRET_KEY: CONSOLE_TESTS_SECRET_KEY,
      PROVIDER_ALLOWED_HOSTS: `127.0.0.1:${new URL(upstream.url).port}`,
    });
    server = running.server;
    projectKey = running.projectKey;
    // The prompt and its two versions through the API; version 1 is what production runs before the experiment.
    const provider = { name: 'openai', type: 'openai', baseUrl: upstream.url, apiKey: 'sk-showcase' };
    expect((await api('POST', '/v2/provider-credentials', provider)).status).toBe(200);
    expect((await api('POST', '/v2/prompts', { slug: ORDER_PROMPT, kind: 'prompt' })).status).toBe(200);
    expect((await api('POST', `/v2/prompts/${ORDER_PROMPT}/versions`, ORDER_V1)).status).toBe(200);
    expect((await api('POST', `/v2/prompts/${ORDER_PROMPT}/versions`, ORDER_V2)).status).toBe(200);
    expect((await api('POST', `/v2/prompts/${ORDER_PROMPT}/deployments`, { environment: PRODUCTION, version: 1 })).status).toBe(200);
    browser = await launchBrowser();
    page = browser.page;
    await signIn(page, server.url, projectKey);
  });
  afterAll(async () => {
    await browser?.close();
    await running?.stop();
    await upstream?.close();
  });

  it("sets up a 50/50 split in production from the prompt's page", async () => {
    await page.goto(`${server.url}/console/prompts/${ORDER_PROMPT}`);
    await page.getByRole('link', { name: `Set up a split in ${PRODUCTION}` }).click();
    await page.getByRole('heading', { name: `${ORDER_PROMPT} in ${PRODUCTION}`, level: 1 }).waitFor();
    // Production runs v1 alone: one arm, and the form offers it against the newest other version, 50/50.
    await page.getByText('v1 alone (no split)', { exact: false }).waitFor();
    const first = page.getByRole('group', { name: 'Arm 1 (control)' });
    const second = page.getByRole('group', { name: 'Arm 2' });
    await first.getByRole('button').getByText('v1 — First version').waitFor();
    await second.getByRole('button').getByText(`v2 — ${ORDER_V2.message}`).waitFor();
    expect([await first.getByLabel('Weight').inputValue(), await second.getByLabel('Weight').inputValue()]).toEqual(['50', '50']);
    expect(await page.getByLabel("Arm 2's share of the calls").textContent()).toBe('50 %');
    // A wrong weight is named before anything is sent.
    await second.getByLabel('Weight').fill('5x');
    await page
      .getByRole('list', { name: 'What to fix before deploying' })
      .getByText('Arm 2: the weight is a whole number from 0 to 10000.')
      .waitFor();
    expect(await page.getByRole('button', { name: `Deploy the split to ${PRODUCTION}` }).isDisabled()).toBe(true);
    await second.getByLabel('Weight').fill('50');
    await page.getByRole('radiogroup', { name: 'Keep each caller on one arm by' }).getByText('none (a fresh draw per call)').click();
    await pictured('experiments-setup');

    await page.getByRole('button', { name: `Deploy the split to ${PRODUCTION}` }).click();
    await page.getByRole('alertdialog').getByText('Sticky by none.', { exact: false }).waitFor();
    await pictured('experiments-confirm', { fullPage: false });
    await confirm(`Deploy to ${PRODUCTION}`, `Deployed: ${PRODUCTION} now runs v1 (weight 50), v2 (weight 50) (deployment 2).`);

    const live = await current();
    expect(live).toMatchObject({
      version: 1,
      deploymentVersion: 2,
      split: [
        { version: 1, weight: 50 },
        { version: 2, weight: 50 },
      ],
      stickyBy: 'none',
      rules: [],
    });
    await cell(2, 0).getByText('50 (50 %)').waitFor();
    await arm(1).getByText('control').waitFor();
  });

  it('counts the calls driven through the API per arm, as the answers named their version', async () => {
    // A fresh draw per call: go on until each arm served at least ten.
    for (let i = 0; i < 200 && (i < 40 || served[1].length < 10 || served[2].length < 10); i++) {
      const { version, logId } = await invoke(i);
      served[version].push(logId);
    }
    expect(served[1].length).toBeGreaterThanOrEqual(10);
    expect(served[2].length).toBeGreaterThanOrEqual(10);
    await refresh();
    for (const version of [1, 2]) await cell(version, 1).getByText(String(served[version].length), { exact: true }).waitFor();
    const api = await results();
    expect(api.arms.map((a) => [a.version, a.calls, a.errors])).toEqual([
      [1, served[1].length, 0],
      [2, served[2].length, 0],
    ]);
  });

  it('shows the feedback sent through the API per arm, with its interval and the verdict', async () => {
    // The application's users found 2 of 8 answers of v1 helpful, and all 8 of v2's.
    for (const version of [1, 2])
      for (const [i, logId] of served[version].slice(0, 8).entries()) {
        const res = await api('POST', '/v2/feedback', { logId, name: 'helpful', value: version === 2 || i < 2 });
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ version, environment: PRODUCTION, prompt: ORDER_PROMPT });
      }
    await refresh();
    const feedback = (version: number) => page.getByRole('list', { name: `Feedback on v${version}` });
    await feedback(1).getByText('25 % true', { exact: false }).waitFor();
    await feedback(2).getByText('100 % true', { exact: false }).waitFor();
    const body = await results();
    for (const version of [1, 2]) {
      const figures = feedbackOf(body.arms[version - 1], 'helpful')!;
      expect(figures).toMatchObject({ kind: 'boolean', n: 8, mean: version === 1 ? 0.25 : 1 });
      expect(await feedback(version).textContent()).toBe(`helpful: ${feedbackText(figures)}`);
      expect(feedbackText(figures)).toMatch(/^(25|100) % true \(95 % CI [\d.]+–[\d.]+ %\), 8 scores$/);
    }
    const verdict = body.verdicts.find((v) => v.name === 'helpful')!;
    expect(verdict).toMatchObject({ version: 2, control: 1, winner: 2 });
    await page.getByRole('region', { name: 'Verdicts against the control' }).getByText(verdict.verdict!).waitFor();
    await pictured('experiments-arms');
  });

  it('reads a call’s feedback on its log, and scores it in the console: the arm’s mean follows', async () => {
    // The third v1 call: the application scored it not helpful; a reviewer disagrees.
    const logId = served[1][2];
    await page.goto(`${server.url}/console/logs/${logId}`);
    const section = page.getByRole('region', { name: 'Feedback' });
    const table = section.getByRole('table', { name: 'Feedback on this call' });
    await table.getByRole('cell', { name: 'false', exact: true }).waitFor();
    // The application's score is listed as from its key.
    const [fromKey] = (await api('GET', `/v2/feedback?logId=${logId}`)).body.data;
    expect(await table.getByRole('row').nth(1).textContent()).toContain(`key ${fromKey.source.slice(0, 8)}…`);

    const form = page.getByRole('form', { name: 'Score this call' });
    await form.getByLabel('Name').fill('helpful');
    await form.getByRole('radiogroup', { name: 'Kind of value' }).getByText('true or false').click();
    await form.getByRole('radiogroup', { name: 'Value' }).getByText('true', { exact: true }).click();
    await form.getByLabel('Comment (optional)').fill('Gives the delivery day, but only after a long apology.');
    await form.getByRole('button', { name: 'Save the score' }).click();
    await form.getByRole('status').getByText(`Saved helpful = true for v1 in ${PRODUCTION}.`).waitFor();
    await table.getByRole('cell', { name: 'the console', exact: true }).waitFor();
    await pictured('experiments-log-feedback');

    // The console's score sits beside the application's (one per target, name and source).
    const listed = (await api('GET', `/v2/feedback?logId=${logId}`)).body.data;
    expect(listed.map((f: { source: string; value: unknown }) => [f.source === 'console' ? 'console' : 'key', f.value]).sort()).toEqual([
      ['console', true],
      ['key', false],
    ]);
    // The session's other writes need the CSRF header, as every console write carries it.
    const noHeader = await page.request.post(`${server.url}/v2/feedback`, { data: { logId, name: 'helpful', value: false } });
    expect(noHeader.status()).toBe(403);

    await page.goto(`${server.url}${splitScreen}`);
    const figures = feedbackOf((await results()).arms[0], 'helpful')!;
    expect(figures).toMatchObject({ n: 9, count: 9 });
    expect(figures.mean).toBeCloseTo(3 / 9, 10);
    await page
      .getByRole('list', { name: 'Feedback on v1' })
      .getByText(`helpful: ${feedbackText(figures)}`)
      .waitFor();
    expect(feedbackText(figures)).toMatch(/^33\.3 % true .*, 9 scores$/);
  });

  it('stops the second arm and resumes it with the form: the calls follow each change', async () => {
    await arm(2).getByRole('button', { name: 'Stop v2' }).click();
    await confirm('Stop v2', `Deployed: ${PRODUCTION} now runs v1 (weight 50), v2 (weight 0) (deployment 3).`);
    await arm(2).getByText('stopped').waitFor();
    expect((await current()).split).toEqual([
      { version: 1, weight: 50 },
      { version: 2, weight: 0 },
    ]);
    expect((await current()).stickyBy).toBe('none');
    for (let i = 0; i < 10; i++) expect((await invoke(i)).version).toBe(1);

    const second = page.getByRole('group', { name: 'Arm 2' });
    expect(await second.getByLabel('Weight').inputValue()).toBe('0');
    await second.getByLabel('Weight').fill('50');
    await page.getByRole('button', { name: `Deploy the split to ${PRODUCTION}` }).click();
    await confirm(`Deploy to ${PRODUCTION}`, `Deployed: ${PRODUCTION} now runs v1 (weight 50), v2 (weight 50) (deployment 4).`);
    // The results are read again after the change: v2's row loses its "stopped".
    await arm(2).getByText('stopped').waitFor({ state: 'detached' });
    await arm(2).getByRole('button', { name: 'Stop v2' }).waitFor();
  });

  it('promotes the winner: production runs v2 alone, and the history and audit trail say so', async () => {
    await arm(2).getByRole('button', { name: 'Promote v2' }).click();
    await page.getByRole('alertdialog').getByText(`${PRODUCTION} will run v2 for every call`, { exact: false }).waitFor();
    await confirm('Deploy v2 alone', `Deployed: ${PRODUCTION} now runs v2 alone (deployment 5).`);
    await page.getByText('v2 alone (no split)', { exact: false }).waitFor();
    // The deployment and the per-arm results are two queries read again after the change: wait for the results too.
    await page.locator('table.arms tbody tr').nth(1).waitFor({ state: 'detached', timeout: 15_000 });
    expect(await page.locator('table.arms tbody tr').count()).toBe(1);
    expect(await page.getByRole('button', { name: /^(Promote|Stop) / }).count()).toBe(0);
    await pictured('experiments-promoted');

    expect(await current()).toMatchObject({ version: 2, deploymentVersion: 5, split: null, stickyBy: null });
    const history = (await api('GET', `/v2/prompts/${ORDER_PROMPT}/deployments?environment=${PRODUCTION}`)).body.data;
    expect(
      history.map((d: { deploymentVersion: number; version: number; split: unknown; current: boolean }) => [
        d.deploymentVersion,
        d.version,
        d.split,
        d.current,
      ]),
    ).toEqual([
      [5, 2, null, true],
      [
        4,
        1,
        [
          { version: 1, weight: 50 },
          { version: 2, weight: 50 },
        ],
        false,
      ],
      [
        3,
        1,
        [
          { version: 1, weight: 50 },
          { version: 2, weight: 0 },
        ],
        false,
      ],
      [
        2,
        1,
        [
          { version: 1, weight: 50 },
          { version: 2, weight: 50 },
        ],
        false,
      ],
      [1, 1, null, false],
    ]);
    const audit = (await api('GET', '/v2/audit?resourceType=deployment')).body.data.filter(
      (event: { resourceId: string; action: string }) =>
        event.resourceId === `${ORDER_PROMPT}@${PRODUCTION}` && event.action === 'deployment.created',
    );
    expect(audit[0]).toMatchObject({
      before: {
        split: [
          { version: 1, weight: 50 },
          { version: 2, weight: 50 },
        ],
      },
      after: { version: 2 },
    });
    expect(audit[0].after.split).toBeUndefined();
    for (let i = 0; i < 5; i++) expect((await invoke(i)).version).toBe(2);

    // The prompt's page lists v2 live in production, the split over.
    await page.getByRole('link', { name: `Back to ${ORDER_PROMPT}` }).click();
    await page.getByRole('link', { name: `Set up a split in ${PRODUCTION}` }).waitFor();
    expect(await page.getByRole('table').first().getByRole('cell', { name: 'v2', exact: true }).count()).toBe(1);
  });

  it("restores the previous split from the prompt's page, as it was", async () => {
    const deployments = page.getByRole('region', { name: 'Deployments' });
    await deployments.getByRole('button', { name: `Restore ${PRODUCTION}'s previous split` }).click();
    await page.getByRole('alertdialog').getByText('It will run the split v1 (50), v2 (50) again', { exact: false }).waitFor();
    await page
      .getByRole('alertdialog')
      .getByRole('button', { name: `Deploy to ${PRODUCTION}` })
      .click();
    await deployments.getByRole('cell', { name: 'split: v1 (50), v2 (50)', exact: true }).waitFor();
    await deployments.getByRole('button', { name: `Back to v2 alone in ${PRODUCTION}` }).waitFor();
    expect(await current()).toMatchObject({
      deploymentVersion: 6,
      split: [
        { version: 1, weight: 50 },
        { version: 2, weight: 50 },
      ],
      stickyBy: 'none',
    });
  });

  it('renders a comment with markup as text', async () => {
    const logId = served[2][0];
    const probe = '<img src=x onerror="document.title=\'pwned\'">';
    expect((await api('POST', '/v2/feedback', { logId, name: 'tone', value: 'friendly', comment: probe })).status).toBe(201);
    await page.goto(`${server.url}/console/logs/${logId}`);
    await page.getByRole('region', { name: 'Feedback' }).getByText(probe, { exact: true }).waitFor();
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.title()).not.toBe('pwned');
  });
});
