import type { Locator, Page } from 'playwright-core';

import type { FakeUpstream } from '../../test/fakes/fake-openai-upstream';
import type { SpawnedServer } from '../../test/support/spawn-server';
import { Browser, callApi, launchBrowser, screenshot, seriousViolations, signIn } from './browser';
import { CONSOLE_TESTS_SECRET_KEY, ConsoleServer, startConsoleServer } from './console-server';
import { CHAT, COMPANY, NEWEST_TICKET, seedShowcase, startShowcaseUpstream, SUPPORT_PROMPT, V2_SYSTEM } from './showcase';

const MARKUP_QUESTION = 'Is <img src=x onerror="window.__xss=5"> a <script>window.__xss=6</script> grinder?';
const SECRET_QUESTION = 'My card number is 4111 1111 1111 1111, can you update it?';

/** What the page's functions evaluated below read (this file is type-checked without the DOM library). */
interface DrawnChart {
  buckets: number[];
  splits: number[];
  ticks: string[];
  legendX: string;
  /** For the bucket with the most: the canvas's pixels down the middle of its bar, and beside it at mid-height. */
  column: { filled: number; of: number };
  beside: { filled: number; of: number };
  barWidthPx: number;
}

/**
 * Reading what was said and what it cost (issue 47), on the showcase's coffee shop in chromium
 * against a real Parley process: a prompt's page shows each environment's live template and
 * configuration (a split's arms each); the logs and threads lists preview the conversation (never
 * a doNotRecord call's, markup as text); the usage screen draws calls and cost per day as stacked
 * bars on a day axis, with the totals as cards, the cost per key, and the table, all equal to
 * GET /v2/usage's answer.
 */
describe(`reading what was said (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let server: SpawnedServer;
  let upstream: FakeUpstream;
  let running: ConsoleServer | undefined;
  let browser: Browser;
  let page: Page;
  let projectKey: string;
  let threadId: string;

  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await callApi(server.url, projectKey, method, path, body);
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const accessible = async (name: string, picture?: string) => {
    if (picture) await screenshot(page, picture);
    expect({ screen: name, violations: await seriousViolations(page) }).toEqual({ screen: name, violations: [] });
  };
  /** Polls `done` until it holds or 10 s passed (a streamed call is logged as it ends). */
  const settled = async (done: () => Promise<boolean>) => {
    for (let waited = 0; waited < 10_000 && !(await done()); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  };
  const texts = (locator: Locator) => locator.allInnerTexts();

  beforeAll(async () => {
    upstream = await startShowcaseUpstream();
    running = await startConsoleServer({
      PARLEY_SECRET_KEY: CONSOLE_TESTS_SECRET_KEY,
      PROVIDER_ALLOWED_HOSTS: `127.0.0.1:${new URL(upstream.url).port}`,
    });
    server = running.server;
    projectKey = running.projectKey;
    threadId = (await seedShowcase(server.url, projectKey, upstream.url)).threadId;
    // A call that asked not to be recorded, and one whose question holds markup, both in production.
    const invoke = (content: string, extra: object = {}) =>
      ok('POST', `/default/default/${SUPPORT_PROMPT}/production`, {
        variables: { customer_name: 'Sam Ortiz', plan: 'Pro' },
        messages: [{ role: 'user', content }],
        ...extra,
      });
    await invoke(SECRET_QUESTION, { doNotRecord: true });
    await invoke(MARKUP_QUESTION);
    await settled(async () => (await ok('GET', `/v2/logs?slug=${SUPPORT_PROMPT}&limit=10`)).data.length >= 5);
    browser = await launchBrowser();
    page = browser.page;
    await signIn(page, server.url, projectKey);
  });
  afterAll(async () => {
    await browser?.close();
    await running?.stop();
    await upstream?.close();
  });

  it("the prompt's page shows what each environment runs: the template as chat bubbles, the model and its settings", async () => {
    await page.goto(`${server.url}/console/prompts/${SUPPORT_PROMPT}`);
    const live = page.getByRole('region', { name: 'Live template and configuration' });
    // Production is chosen first; its version 2 is pictured with its template and configuration.
    expect(await live.getByRole('tab', { name: 'production' }).getAttribute('aria-selected')).toBe('true');
    const template = live.getByRole('list', { name: 'Template of v2 in production' });
    await template.waitFor();
    expect(await texts(template.locator('.bubble-text'))).toEqual([V2_SYSTEM]);
    expect(await template.locator('.bubble strong').allInnerTexts()).toEqual(['system']);
    const config = live.getByRole('table', { name: 'Configuration of v2 in production' });
    const row = async (name: string) => (await config.getByRole('row', { name: new RegExp(`^${name}`) }).innerText()).replace(/\s+/g, ' ');
    expect(await row('Provider')).toBe('Provider openai');
    expect(await row('Model')).toBe('Model gpt-4o-mini');
    expect(await row('Parameters')).toBe('Parameters max_tokens: 300 temperature: 0.3');
    expect(await row('Variables')).toBe(`Variables company = "${COMPANY}" customer_name = "there" plan = "Standard"`);
    expect(await row('Tools')).toBe('Tools none');
    expect(await row('Routing')).toBe('Routing none: every call goes to openai/gpt-4o-mini');
    expect(await live.getByRole('link', { name: 'Logs of v2 in production' }).getAttribute('href')).toBe(
      `/console/logs?slug=${SUPPORT_PROMPT}&version=2&environment=production`,
    );
    await accessible('prompt with its live template', 'prompt-live');

    // A split shows each arm's version, with its share of the calls; the tab is kept in the URL.
    await ok('POST', `/v2/prompts/${SUPPORT_PROMPT}/deployments`, {
      environment: 'staging',
      split: [
        { version: 1, weight: 30 },
        { version: 2, weight: 70 },
      ],
    });
    await page.reload();
    await live.getByRole('tab', { name: 'staging' }).click();
    await page.waitForURL(/[?&]live=staging/);
    const arms = live.getByRole('article');
    await live.getByRole('article', { name: 'v1 in staging' }).waitFor();
    expect(await arms.getByRole('heading', { level: 3 }).allInnerTexts()).toEqual([
      'v1 · 30 % of the calls — First version',
      expect.stringMatching(/^v2 · 70 % of the calls — Address the customer by name/),
    ]);
    const v1 = live.getByRole('list', { name: 'Template of v1 in staging' });
    expect(await texts(v1.locator('.bubble-text'))).toEqual([
      (await ok('GET', `/v2/prompts/${SUPPORT_PROMPT}/versions/1`)).template[0].content,
    ]);
    expect(
      await live
        .getByRole('table', { name: 'Configuration of v1 in staging' })
        .getByRole('row', { name: /^Model/ })
        .innerText(),
    ).toMatch(/gpt-4o$/);
    await accessible('prompt with a split');
  });

  it('the logs list previews each call: the question, the answer, its cost and latency; nothing of a doNotRecord call', async () => {
    await page.goto(`${server.url}/console/logs?slug=${SUPPORT_PROMPT}&environment=production`);
    const table = page.getByRole('table', { name: 'Request logs, newest first' });
    await table.getByText(NEWEST_TICKET.question).waitFor();
    const listed = (await ok('GET', `/v2/logs?slug=${SUPPORT_PROMPT}&environment=production&limit=50`)).data as {
      id: string;
      doNotRecord: boolean;
      costUsd: string | null;
      latencyMs: number;
      preview: { input: string | null; output: string | null };
    }[];
    const rows = table.locator('tbody tr');
    expect(await rows.count()).toBe(listed.length);
    const newest = rows.filter({ hasText: NEWEST_TICKET.question });
    const ticket = listed.find((log) => log.preview.input === NEWEST_TICKET.question)!;
    // The answer, cut at 160 characters, its cost and latency beside it.
    expect(ticket.preview.output).toBe(`${NEWEST_TICKET.answer.slice(0, 159).trimEnd()}…`);
    const said = (await newest.locator('td.said').innerText()).replace(/\s+/g, ' ');
    expect(said).toBe(`Input ${NEWEST_TICKET.question} Output ${ticket.preview.output}`);
    expect(await newest.getByRole('cell', { name: `$${ticket.costUsd}`, exact: true }).count()).toBe(1);
    expect(await newest.getByRole('cell', { name: `${ticket.latencyMs} ms`, exact: true }).count()).toBe(1);
    // The doNotRecord call: listed, its row says its content was not recorded, none of it is on the page.
    const secret = listed.find((log) => log.doNotRecord)!;
    expect(secret.preview).toEqual({ input: null, output: null });
    expect(await rows.filter({ hasText: 'not recorded (doNotRecord)' }).count()).toBe(1);
    expect(await page.getByText('4111').count()).toBe(0);
    // Markup in a question is text.
    await table.getByText(MARKUP_QUESTION).first().waitFor();
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    await accessible('logs with previews', 'logs-previews');
  });

  it('the threads list previews each conversation: its first and last message, how many, what it cost', async () => {
    await page.goto(`${server.url}/console/threads`);
    const table = page.getByRole('table', { name: 'Threads, newest first' });
    const row = table.locator('tbody tr').filter({ has: page.getByRole('link', { name: threadId }) });
    await row.getByText(CHAT[0].question).waitFor();
    const [thread] = (
      (await ok('GET', '/v2/threads?include=preview&limit=50')).data as { id: string; preview: Record<string, any> }[]
    ).filter((t) => t.id === threadId);
    expect(thread.preview).toMatchObject({
      first: { role: 'user', text: CHAT[0].question },
      last: { role: 'assistant', text: CHAT[1].answer },
      calls: 2,
    });
    const said = (await row.locator('td.said').innerText()).replace(/\s+/g, ' ');
    expect(said).toBe(`user ${CHAT[0].question} … assistant ${CHAT[1].answer}`);
    const cells = await row.getByRole('cell').allInnerTexts();
    expect(cells[1]).toBe(String(thread.preview.messageCount));
    expect(cells[2]).toBe(`$${thread.preview.costUsd}`);
    await accessible('threads with previews', 'threads-previews');
  });

  it("usage: calls and cost per day as stacked bars on a day axis; the cards, the cost per key and the table are the API's figures", async () => {
    await page.goto(`${server.url}/console/usage?range=7d&bucket=day&group=key`);
    const cards = page.getByRole('definition').first();
    await cards.waitFor();
    // The same query the screen made: its range ends at the next full hour.
    const to = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000);
    const from = new Date(to.getTime() - 7 * 86_400_000);
    const report = await ok('GET', `/v2/usage?from=${from.toISOString()}&to=${to.toISOString()}&bucket=day&group_by=key`);
    const totals = report.totals;
    const totalsList = page.locator('dl[aria-label="Totals"]');
    const card = async (name: string) =>
      (
        await totalsList
          .locator('dt')
          .filter({ hasText: new RegExp(`^${name}$`) })
          .locator('xpath=following-sibling::dd')
          .innerText()
      ).trim();
    const rate = totals.calls > 0 ? `${((totals.errors / totals.calls) * 100).toFixed(1)} %` : '—';
    expect({
      calls: await card('Calls'),
      errors: await card('Errors'),
      rate: await card('Error rate'),
      p50: await card('Latency p50'),
      p95: await card('Latency p95'),
      tokens: await card('Tokens'),
      cost: await card('Cost'),
    }).toEqual({
      calls: String(totals.calls),
      errors: String(totals.errors),
      rate,
      p50: `${totals.latencyMs.p50} ms`,
      p95: `${totals.latencyMs.p95} ms`,
      tokens: String(totals.tokens.total),
      cost: `$${totals.costUsd}`,
    });
    expect(Number(totals.costUsd)).toBeGreaterThan(0);

    // The table: a row per day and key, as the API answered.
    const table = page.getByRole('table', { name: 'Usage per day' });
    const rows = (await table.locator('tbody tr').allInnerTexts()).map((r) => r.split('\t').map((cell) => cell.trim()));
    expect(rows.map(([day, , calls, errors, , , tokens, cost]) => [day, calls, errors, tokens, cost])).toEqual(
      report.data.map((r: any) => [r.start.slice(0, 10), String(r.calls), String(r.errors), String(r.tokens.total), r.costUsd]),
    );
    // Spend per key: each key by its name, its cost the sum of its rows.
    const keys = (await ok('GET', '/v2/workspaces/default/projects/default/api-keys')).data as { id: string; name: string }[];
    const costBy = page.getByRole('region', { name: 'Cost by key' });
    for (const keyId of new Set(report.data.map((r: any) => r.keyId as string))) {
      const name = `key ${keys.find((k) => k.id === keyId)!.name}`;
      const sum = report.data.filter((r: any) => r.keyId === keyId).reduce((s: number, r: any) => s + Number(r.costUsd), 0);
      const dds = await costBy.locator('dt').filter({ hasText: name }).locator('xpath=following-sibling::dd').allInnerTexts();
      expect(Number(dds[0].replace('$', ''))).toBeCloseTo(sum, 10);
      expect(dds[1]).toMatch(/^\d+ calls, /);
    }

    // The charts: calls, then cost; bars, one per day, stacked; ticks that are days; a legend that names the range.
    const charts = page.locator('.chart');
    expect(await charts.evaluateAll((els) => els.map((el: any) => el.dataset.unit))).toEqual(['calls', 'USD']);
    for (const index of [0, 1]) {
      const drawn: DrawnChart = await charts.nth(index).evaluate((el: any) => {
        const u = el.uplot;
        const buckets: number[] = Array.from(u.data[0]);
        const stacked: number[] = Array.from(u.data[1]);
        const k = stacked.indexOf(Math.max(...stacked));
        const ctx = u.ctx;
        const x = Math.round(u.valToPos(buckets[k], 'x', true));
        const top = Math.round(u.valToPos(stacked[k], 'y', true));
        const bottom = Math.round(u.valToPos(0, 'y', true));
        const filled = (pixels: Uint8ClampedArray) => {
          let n = 0;
          for (let i = 0; i < pixels.length; i += 4) if (pixels[i + 3] > 200 && pixels[i] + pixels[i + 1] + pixels[i + 2] < 600) n++;
          return { filled: n, of: pixels.length / 4 };
        };
        const step = buckets.length > 1 ? Math.abs(u.valToPos(buckets[1], 'x', true) - u.valToPos(buckets[0], 'x', true)) : 40;
        // Middle of the bar's height, a little inside its top and bottom; then halfway to the next bucket.
        const column = filled(ctx.getImageData(x, top + 3, 1, Math.max(1, bottom - top - 6)).data);
        const beside = filled(ctx.getImageData(Math.round(x + step / 2), top + 3, 1, Math.max(1, bottom - top - 6)).data);
        let width = 0;
        const row = ctx.getImageData(Math.round(x - step / 2), Math.round((top + bottom) / 2), Math.round(step), 1).data;
        for (let i = 0; i < row.length; i += 4) if (row[i + 3] > 200 && row[i] + row[i + 1] + row[i + 2] < 600) width++;
        const legend = el.querySelector('.u-legend .u-series .u-value');
        return {
          buckets,
          splits: Array.from(u.axes[0]._splits ?? []),
          ticks: Array.from(u.axes[0]._values ?? []),
          legendX: legend ? legend.textContent : '',
          column,
          beside,
          barWidthPx: width,
        };
      });
      // Day buckets on a day axis: every tick is a bucket's midnight, written as a date, never an hour.
      expect(drawn.buckets.every((b) => b % 86_400 === 0)).toBe(true);
      expect(drawn.splits.length).toBeGreaterThan(0);
      expect(drawn.splits.every((s) => drawn.buckets.includes(s))).toBe(true);
      expect(drawn.ticks.every((tick) => /^\d{1,2} [A-Z][a-z]{2}$/.test(tick))).toBe(true);
      // A bar: filled from its top down to the axis, several pixels wide, and empty between two days.
      expect(drawn.column.filled).toBe(drawn.column.of);
      expect(drawn.barWidthPx).toBeGreaterThanOrEqual(6);
      expect(drawn.beside.filled).toBe(0);
      // No "--" in the legend: the range it covers until a bar is hovered.
      expect(drawn.legendX).toMatch(/^\d{1,2} [A-Z][a-z]{2} – \d{1,2} [A-Z][a-z]{2}$/);
    }
    // Hovering a day's bar names that day in the legend.
    const box = (await charts.first().locator('.u-over').boundingBox())!;
    await page.mouse.move(box.x + box.width - 5, box.y + box.height / 2);
    const legendX = charts.first().locator('.u-legend .u-series').first().locator('.u-value');
    await settled(async () => /^[A-Z][a-z]{2} \d{1,2} [A-Z][a-z]{2} \d{4}$/.test((await legendX.textContent()) ?? ''));
    expect(await legendX.textContent()).toMatch(/^[A-Z][a-z]{2} \d{1,2} [A-Z][a-z]{2} \d{4}$/);
    await page.mouse.move(0, 0);
    await accessible('usage by key');

    // Split by prompt, the day's bar is stacked: the support prompt's calls under the chat assistant's or over them, each its own colour.
    await page.goto(`${server.url}/console/usage?range=7d&bucket=day&group=prompt`);
    await page.getByRole('region', { name: 'Cost by prompt' }).waitFor();
    const byPrompt = await ok('GET', `/v2/usage?from=${from.toISOString()}&to=${to.toISOString()}&bucket=day&group_by=prompt`);
    const stack = await charts.first().evaluate((el: any) => {
      const u = el.uplot;
      const k = (u.data[1] as number[]).indexOf(Math.max(...u.data[1]));
      const x = Math.round(u.valToPos(u.data[0][k], 'x', true));
      const colourAt = (value: number) => {
        const [r, g, b] = u.ctx.getImageData(x, Math.round(u.valToPos(value, 'y', true)), 1, 1).data;
        return `rgb(${r}, ${g}, ${b})`;
      };
      const labels = u.series.slice(1).map((s: any) => s.label);
      const [top, bottom] = [u.data[1][k], u.data[2][k]];
      return { labels, day: u.data[0][k], top, bottom, colours: [colourAt(bottom + (top - bottom) / 2), colourAt(bottom / 2)] };
    });
    const day = new Date(stack.day * 1000).toISOString();
    const callsOf = (prompt: string) => byPrompt.data.find((r: any) => r.prompt === prompt && r.start === day)?.calls ?? 0;
    expect(stack.labels).toHaveLength(2);
    expect([stack.top, stack.bottom]).toEqual([callsOf(stack.labels[0]) + callsOf(stack.labels[1]), callsOf(stack.labels[1])]);
    expect(stack.colours).toEqual(['rgb(31, 79, 209)', 'rgb(179, 38, 30)']);
    await accessible('usage by prompt', 'usage-charts');
  });
});
