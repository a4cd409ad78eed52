import { randomBytes } from 'node:crypto';

import type { Page } from 'playwright-core';

import { SpawnedServer, spawnServer } from '../../test/support/spawn-server';
import { Browser, callApi, launchBrowser, seriousViolations, signIn } from './browser';

/**
 * Issue 45 in the console (docs/observability.md, "Trace ids in request logs"): a log's trace id
 * with a link into the operator's trace viewer (PARLEY_TRACE_URL_TEMPLATE), and the logs of one
 * trace, filtered in the URL.
 */
describe('console: trace ids of logs', () => {
  let server: SpawnedServer;
  let browser: Browser;
  let page: Page;
  let projectKey: string;
  const traceId = randomBytes(16).toString('hex');

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await callApi(server.url, projectKey, method, path, body);
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const invoke = (traceparent?: string) =>
    fetch(`${server.url}/default/default/traced/production`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': projectKey, ...(traceparent ? { traceparent } : {}) },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hello there' }] }),
    }).then((res) => expect(res.status).toBe(200));

  beforeAll(async () => {
    server = await spawnServer({ LOG_LEVEL: 'warn', PARLEY_TRACE_URL_TEMPLATE: 'http://localhost:16686/trace/{traceId}' });
    projectKey = /PARLEY_KEY=(\S+)/.exec(server.output())![1];
    browser = await launchBrowser();
    page = browser.page;
    await signIn(page, server.url, projectKey);
    await api('POST', '/v2/prompts', { slug: 'traced', kind: 'prompt' });
    await api('POST', '/v2/prompts/traced/versions', { template: [{ role: 'system', content: 'Answer briefly.' }], model: 'echo' });
    await api('POST', '/v2/prompts/traced/deployments', { environment: 'production' });
  });
  afterAll(async () => {
    await browser?.close();
    server?.child.kill('SIGTERM');
    await server?.exited;
  });

  it("shows a log's trace id and its link into the trace viewer, and lists the logs of that trace", async () => {
    await invoke(`00-${traceId}-${randomBytes(8).toString('hex')}-01`);
    await invoke(`00-${traceId}-${randomBytes(8).toString('hex')}-01`);
    await invoke();
    const [traced] = (await api('GET', `/v2/logs?traceId=${traceId}&limit=1`)).data as { id: string }[];
    await page.goto(`${server.url}/console/logs/${traced.id}`);
    await page.getByRole('heading', { name: /^Log / }).waitFor();
    expect(await page.getByRole('link', { name: 'Open in the trace viewer' }).getAttribute('href')).toBe(
      `http://localhost:16686/trace/${traceId}`,
    );
    await page.getByRole('link', { name: `Logs of trace ${traceId}` }).click();
    await page.waitForURL(new RegExp(`/console/logs\\?traceId=${traceId}$`));
    await page.getByRole('table').waitFor();
    expect(await page.getByRole('table').getByRole('row').count()).toBe(2 + 1);
    expect(await page.getByLabel('Trace id', { exact: true }).inputValue()).toBe(traceId);
    expect(await seriousViolations(page)).toEqual([]);
    // A log without a trace shows none.
    const [untraced] = (await api('GET', '/v2/logs?slug=traced&limit=1')).data as { id: string }[];
    await page.goto(`${server.url}/console/logs/${untraced.id}`);
    await page.getByRole('heading', { name: /^Log / }).waitFor();
    expect(await page.getByRole('link', { name: 'Open in the trace viewer' }).count()).toBe(0);
  });
});
