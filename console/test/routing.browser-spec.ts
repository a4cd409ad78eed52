import type { Page } from 'playwright-core';

import type { SpawnedServer } from '../../test/support/spawn-server';
import { Browser, callApi, launchBrowser, seriousViolations, signIn } from './browser';
import { ConsoleServer, startConsoleServer } from './console-server';

/**
 * A version's routing block in the console (docs/console.md; docs/routing.md, "The routing block"):
 * the playground's editor shows the block a version holds, edits a target, and saves it as a new
 * version that keeps the block and the response cache; a target the API refuses is shown with its
 * path; the diff shows the block; a routed call's log lists its attempts, a plain call's none.
 */
describe(`console: routing (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let server: SpawnedServer;
  let running: ConsoleServer | undefined;
  let browser: Browser;
  let page: Page;
  let projectKey: string;

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await callApi(server.url, projectKey, method, path, body);
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const replaceText = async (name: string, text: string) => {
    await page.getByRole('textbox', { name }).click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(text);
  };
  const pickerValue = (label: string) =>
    page
      .getByRole('main')
      .locator('.field')
      .filter({ has: page.getByText(label, { exact: true }) })
      .getByRole('button')
      .innerText();

  beforeAll(async () => {
    running = await startConsoleServer();
    server = running.server;
    projectKey = running.projectKey;
    browser = await launchBrowser();
    page = browser.page;
    await signIn(page, server.url, projectKey);
    await api('POST', '/v2/provider-credentials', { name: 'gateway', type: 'openai', baseUrl: 'https://llm.example.invalid/v1' });
    await api('POST', '/v2/prompts', { slug: 'routed', kind: 'prompt' });
    await api('POST', '/v2/prompts/routed/versions', {
      template: [{ role: 'system', content: 'Answer briefly.' }],
      routing: {
        strategy: 'priority',
        targets: [
          { provider: 'local', model: 'echo' },
          { provider: 'gateway', model: 'gpt-4o-mini', parameters: { temperature: 0.3 } },
        ],
        fallbackOn: ['rate_limit', 'timeout'],
        firstTokenTimeoutMs: 4000,
      },
      cache: { ttlSeconds: 300 },
    });
  });
  afterAll(async () => {
    await browser?.close();
    await running?.stop();
  });

  it('shows the block of a version in the editor, edits a target, and saves a new version that keeps the block and the cache', async () => {
    await page.goto(`${server.url}/console/prompts/routed/playground?from=1`);
    await page.getByRole('heading', { name: 'Routing', exact: true }).waitFor();
    expect(await page.getByRole('radio', { name: 'Priority (in order)' }).isChecked()).toBe(true);
    expect(await pickerValue('Provider of target 1')).toContain('local');
    expect(await pickerValue('Provider of target 2')).toContain('gateway');
    expect(await page.getByLabel('Model of target 2').inputValue()).toBe('gpt-4o-mini');
    expect(await page.getByRole('textbox', { name: 'Parameters of target 2 (JSON)' }).innerText()).toBe('{"temperature":0.3}');
    const checked = async () =>
      Promise.all(
        ['Rate limited (429)', 'Server error (5xx, overloaded)', 'Timeout', 'Connection failure', 'No first token in time'].map((name) =>
          page.getByRole('checkbox', { name }).isChecked(),
        ),
      );
    expect(await checked()).toEqual([true, false, true, false, false]);
    expect(await page.getByLabel('First token timeout (ms)').inputValue()).toBe('4000');
    // With a routing block the first target is the provider and model: no separate fields.
    expect(await page.getByLabel('Provider', { exact: true }).count()).toBe(0);
    // Its settings are the version's parameters: the primary has no parameters of its own.
    expect(await page.getByRole('textbox', { name: 'Parameters of target 1 (JSON)' }).count()).toBe(0);
    await page.getByText("The primary target uses the version's parameters.").waitFor();
    expect({ violations: await seriousViolations(page) }).toEqual({ violations: [] });

    // A third target that cannot give a JSON answer: refused when saved, naming the target.
    await page.getByRole('button', { name: 'Add a target' }).click();
    await replaceText('Parameters of target 3 (JSON)', '{"response_format": {"type": "json_object"}}');
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page
      .getByRole('alert')
      .getByText(/routing\.targets\.2: provider "local" is of type local, which cannot honour response_format/)
      .waitFor();
    expect((await api('GET', '/v2/prompts/routed/versions')).data).toHaveLength(1);
    await page.getByRole('button', { name: 'Remove target 3' }).click();

    await page.getByRole('radiogroup', { name: 'Strategy' }).getByText('Weighted', { exact: true }).click();
    await page.getByLabel('Weight of target 1').fill('3');
    await page.getByLabel('Weight of target 2').fill('1');
    await page.getByLabel('Model of target 2').fill('gpt-4.1-mini');
    await page.getByText('Server error (5xx, overloaded)', { exact: true }).click();
    await page.getByLabel('What changed (optional)').fill('weighted over two targets');
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page.getByRole('status').getByText('Saved as v2.').waitFor();

    const v2 = await api('GET', '/v2/prompts/routed/versions/2');
    expect(v2).toMatchObject({
      provider: 'local',
      model: 'echo',
      message: 'weighted over two targets',
      routing: {
        strategy: 'weighted',
        targets: [
          { provider: 'local', model: 'echo', weight: 3 },
          { provider: 'gateway', model: 'gpt-4.1-mini', weight: 1, parameters: { temperature: 0.3 } },
        ],
        fallbackOn: ['rate_limit', 'server_error', 'timeout'],
        firstTokenTimeoutMs: 4000,
      },
      cache: { ttlSeconds: 300 },
    });
    expect(v2.routing.targets[0]).not.toHaveProperty('parameters');
  });

  it('shows the block in the diff of two versions', async () => {
    await page.goto(`${server.url}/console/prompts/routed/diff?a=1&b=2`);
    const after = page.getByRole('textbox', { name: 'version 2' });
    await after.getByText('routing: weighted').waitFor();
    expect(await after.innerText()).toContain('target: gateway/gpt-4.1-mini weight 1 {"temperature":0.3}');
    expect(await page.getByRole('textbox', { name: 'version 1' }).innerText()).toContain('cache: ttlSeconds 300');
  });

  it("lists a routed call's attempts, the failed target and the one that served, and none for a call without routing", async () => {
    // Without routing: one attempt, no table. (The first start's project: src/setup/first-run-banner.ts.)
    await api('POST', '/v2/prompts/routed/deployments', { environment: 'production', version: 2 });
    await api('POST', '/v2/prompts', { slug: 'plain', kind: 'prompt' });
    await api('POST', '/v2/prompts/plain/versions', { template: [{ role: 'system', content: 'Answer briefly.' }], model: 'echo' });
    await api('POST', '/v2/prompts/plain/deployments', { environment: 'production' });
    await api('POST', '/default/default/plain/production', { messages: [{ role: 'user', content: 'hello there' }] });
    const [plain] = (await api('GET', '/v2/logs?slug=plain&limit=1')).data as { id: string }[];
    await page.goto(`${server.url}/console/logs/${plain.id}`);
    await page.getByRole('heading', { name: /^Log / }).waitFor();
    expect(await page.getByRole('heading', { name: 'Attempts' }).count()).toBe(0);

    // Routed, the gateway first: the outbound policy refuses its host (a connection failure), local/echo serves.
    const v3 = await api('POST', '/v2/prompts/routed/versions', {
      template: [{ role: 'system', content: 'Answer briefly.' }],
      routing: {
        targets: [
          { provider: 'gateway', model: 'gpt-4o-mini' },
          { provider: 'local', model: 'echo' },
        ],
      },
    });
    await api('POST', '/v2/prompts/routed/deployments', { environment: 'production', version: v3.version });
    await api('POST', '/default/default/routed/production', { messages: [{ role: 'user', content: 'hello there' }] });
    const [routed] = (await api('GET', '/v2/logs?slug=routed&limit=1')).data as { id: string }[];
    await page.goto(`${server.url}/console/logs/${routed.id}`);
    const table = page.getByRole('region', { name: 'Attempts' }).getByRole('table');
    await table.waitFor();
    const rows = (await table.getByRole('row').allInnerTexts()).slice(1).map((row) => row.split('\t').map((cell) => cell.trim()));
    expect(rows).toHaveLength(2);
    expect(rows[0].slice(0, 2)).toEqual(['1', 'gateway/gpt-4o-mini']);
    expect(rows[0][2]).toMatch(/^5\d\d$/);
    expect(rows[0][7]).not.toBe('—'); // its error
    expect(rows[1].slice(0, 3)).toEqual(['2', 'local/echo', '200']);
    expect(rows[1][7]).toBe('—');
    expect(await seriousViolations(page)).toEqual([]);
  });
});
