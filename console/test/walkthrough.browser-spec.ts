import { gzipSync } from 'node:zlib';

import type { Locator, Page, Response } from 'playwright-core';

import type { FakeUpstream } from '../../test/fakes/fake-openai-upstream';
import { SpawnedServer, spawnServer } from '../../test/support/spawn-server';
import { Browser, launchBrowser, screenshot, seriousViolations } from './browser';
import {
  CHAT,
  NEWEST_TICKET,
  PLAYGROUND_RUN,
  seedShowcase,
  startShowcaseUpstream,
  SUPPORT_CHAT,
  SUPPORT_PROMPT,
  THREAD_METADATA,
} from './showcase';

/**
 * The console in Debian's chromium against a real Parley process (docs/console.md, "Browser
 * tests"): the walk-through of issue #17's "Done when", on PGlite, or on the PostgreSQL database
 * named by DATABASE_URL (an empty one: the server seeds it and prints the keys, as on a first start).
 * The pictures it saves in docs/console/ show the realistic project of showcase.ts; the markup
 * probes below (XSS) run on the demo prompt, whose screens are checked but not pictured.
 */
const XSS_TEMPLATE = 'Version two <img src=x onerror="window.__xss=1"> <script>window.__xss=2</script>';
const XSS_MESSAGE = 'Hello from the browser <img src=x onerror="window.__xss=3"><script>window.__xss=4</script>';
const COUNTED = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen';
const V2_ANSWER = 'one two three four five six seven eight nine ten eleven twelve';
const FIRST_LOAD_BUDGET = 350 * 1024;

describe(`console in chromium (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let server: SpawnedServer;
  let upstream: FakeUpstream;
  let showcaseThread: string;
  let browser: Browser;
  let page: Page;
  let projectKey: string;
  let adminKey: string;
  let projectCookie: string;
  let otherWorkspace: string;

  const api = async (method: string, path: string, options: { key?: string; cookie?: string; csrf?: boolean; body?: unknown } = {}) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (options.csrf) headers['X-Parley-CSRF'] = '1';
    if (options.key) headers['X-API-Key'] = options.key;
    if (options.cookie) headers.Cookie = options.cookie;
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers,
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  /**
   * The demo prompt's answer in production. The local echo provider repeats the last user message,
   * cut at max_tokens words: version 2 sets max_tokens to 12, version 1 none, so the answer tells them apart.
   */
  const productionAnswer = async () => {
    const res = await api('POST', '/default/default/demo-prompt/production', {
      key: projectKey,
      body: { variables: { name: 'Ada' }, messages: [{ role: 'user', content: COUNTED }] },
    });
    expect(res.status).toBe(200);
    return res.body.choices[0].message.content as string;
  };
  /**
   * axe-core finds no serious or critical violation on the screen as it is; it is saved as
   * docs/console/<name>.png unless `picture` is false (the screens that show the markup probes).
   */
  const accessible = async (name: string, { picture = true } = {}) => {
    if (picture) await screenshot(page, name);
    expect({ screen: name, violations: await seriousViolations(page) }).toEqual({ screen: name, violations: [] });
  };
  /** Picks an option; the picker is reopened until its list has loaded (on a loaded machine one opened early shows nothing yet). */
  const choose = async (label: string, option: string, within = page.getByRole('main')) => {
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
  /** Picks a workspace, then a project (each picker reopened until its list has loaded). */
  const chooseProject = async (workspace: string, project: string, within = page.getByRole('main')) => {
    await choose('Workspace', workspace, within);
    await choose('Project', project, within);
  };
  /** Polls a locator's count until it is `count` or 10 s passed (a string waitForFunction is refused by the console's CSP). */
  const settledCount = async (locator: Locator, count: number) => {
    for (let waited = 0; waited < 10_000 && (await locator.count()) !== count; waited += 100) await page.waitForTimeout(100);
    return locator.count();
  };
  const noScriptRan = async () => {
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await page.locator('img[src="x"]').count()).toBe(0);
  };

  beforeAll(async () => {
    upstream = await startShowcaseUpstream();
    server = await spawnServer({
      DATABASE_URL: process.env.DATABASE_URL,
      LOG_LEVEL: 'warn',
      // The showcase's provider: a stored key (encrypted under this secret) for the fake upstream on loopback.
      PARLEY_SECRET_KEY: 'console-tests-secret-key-0123456789abcdef',
      PROVIDER_ALLOWED_HOSTS: `127.0.0.1:${new URL(upstream.url).port}`,
    });
    projectKey = /PARLEY_KEY=(\S+)/.exec(server.output())![1];
    adminKey = /PARLEY_ADMIN_KEY=(\S+)/.exec(server.output())![1];
    showcaseThread = (await seedShowcase(server.url, projectKey, upstream.url)).threadId;
    browser = await launchBrowser();
    page = browser.page;
  });
  afterAll(async () => {
    await browser?.close();
    server?.child.kill('SIGTERM');
    await server?.exited;
    await upstream?.close();
  });

  it('the first start prints the console URL; its first load ships at most 350 KB of gzipped JavaScript', async () => {
    expect(server.output()).toContain(`Console: ${server.url}/console`);
    const scripts: Promise<number>[] = [];
    const onResponse = (res: Response) => {
      if (res.request().resourceType() === 'script') scripts.push(res.body().then((body) => gzipSync(body, { level: 9 }).length));
    };
    page.on('response', onResponse);
    const res = await page.goto(`${server.url}/console`);
    await page.getByRole('heading', { name: 'Sign in to Parley', exact: true }).waitFor();
    page.off('response', onResponse);
    const csp = res!.headers()['content-security-policy'];
    expect(csp).toMatch(/script-src 'self';/);
    expect(csp).not.toContain('unsafe-inline');
    const gzipped = (await Promise.all(scripts)).reduce((a, b) => a + b, 0);
    console.log(`first load: ${scripts.length} scripts, ${(gzipped / 1024).toFixed(1)} KB gzipped`);
    expect(gzipped).toBeLessThanOrEqual(FIRST_LOAD_BUDGET);
    await accessible('sign-in');
  });

  it('signs in with the project key; the session cookie is HttpOnly and SameSite=Strict', async () => {
    await page.getByLabel('API key').fill(projectKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Prompts and assistants', exact: true }).waitFor();
    const cookie = (await browser.context.cookies()).find((c) => c.name === 'parley_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    projectCookie = `parley_session=${cookie.value}`;
    expect(await page.evaluate('document.cookie')).not.toContain('parley_session');
    await page.getByRole('link', { name: 'demo-prompt' }).waitFor();
    await page.getByRole('link', { name: SUPPORT_PROMPT }).waitFor();
    await accessible('prompts');
  });

  it("pictures the realistic project: a prompt's deployments and versions, their diff, a playground run, a log and a thread", async () => {
    await page.getByRole('link', { name: SUPPORT_PROMPT }).click();
    await page.getByRole('heading', { name: 'Versions', exact: true }).waitFor();
    // Version 2 is live everywhere, production rolled forward from version 1; the two newest versions are picked to compare.
    await page.getByRole('button', { name: 'Roll back production to v1' }).waitFor();
    await page.getByRole('link', { name: 'Show the diff of v1 and v2' }).waitFor();
    // The experiments section is loaded with the evaluation screens: pictured once it has loaded (no run yet).
    await page.getByRole('heading', { name: 'No runs yet' }).waitFor();
    await accessible('prompt');

    await page.getByRole('link', { name: 'Show the diff of v1 and v2' }).click();
    const changed = page.locator('.cm-merge-b .cm-changedLine');
    await changed.first().waitFor();
    expect(await changed.allTextContents()).toEqual(
      expect.arrayContaining([
        expect.stringContaining('model: gpt-4o-mini'),
        expect.stringContaining('The customer is {{customer_name}}, on the {{plan}} plan.'),
      ]),
    );
    await accessible('diff');

    await page.getByRole('link', { name: `Back to ${SUPPORT_PROMPT}` }).click();
    await page.getByRole('link', { name: 'Edit in playground' }).click();
    await page.getByText('Editing a draft based on v2.').waitFor();
    for (const [name, value] of Object.entries(PLAYGROUND_RUN.variables)) await page.getByLabel(`Variable ${name}`).fill(value);
    await page.getByRole('textbox', { name: 'Messages (JSON)' }).click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(JSON.stringify([{ role: 'user', content: PLAYGROUND_RUN.question }], null, 2));
    await page.getByRole('button', { name: 'Run without saving' }).click();
    await page.getByRole('region', { name: 'Draft output' }).getByText(PLAYGROUND_RUN.answer).waitFor();
    await accessible('playground');

    // The newest production call: its template rendered with the call's variables, its metadata.
    await page.goto(`${server.url}/console/logs?slug=${SUPPORT_PROMPT}&environment=production`);
    await page.getByRole('table').getByRole('link').first().click();
    const request = page.getByRole('list', { name: 'Rendered request' });
    await request
      .getByText(`The customer is ${NEWEST_TICKET.variables.customer_name}, on the ${NEWEST_TICKET.variables.plan} plan.`)
      .waitFor();
    await request.getByText(NEWEST_TICKET.question).waitFor();
    await page.getByRole('list', { name: 'Response' }).getByText(NEWEST_TICKET.answer).waitFor();
    await page.getByText(NEWEST_TICKET.metadata.ticket).waitFor();
    await accessible('log');

    await page.goto(`${server.url}/console/threads/${showcaseThread}`);
    const transcript = page.getByRole('list', { name: 'Transcript' });
    for (const turn of CHAT) {
      await transcript.getByText(turn.question).waitFor();
      await transcript.getByText(turn.answer).waitFor();
    }
    await page.getByRole('link', { name: `Continue in the playground (${SUPPORT_CHAT})` }).waitFor();
    await page.getByText(THREAD_METADATA.customer).waitFor();
    await accessible('thread');

    await page.getByRole('link', { name: 'Prompts', exact: true }).click();
    await page.getByRole('link', { name: 'demo-prompt' }).waitFor();
  });

  it('edits the demo prompt, runs the draft streamed, and saves it as version 2', async () => {
    await page.getByRole('link', { name: 'demo-prompt' }).click();
    await page.getByRole('heading', { name: 'Versions', exact: true }).waitFor();
    await accessible('demo-prompt', { picture: false });
    await page.getByRole('link', { name: 'Edit in playground' }).click();
    const template = page.getByRole('textbox', { name: 'Template message 1 (system)' });
    await template.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(`Greet {{name}} warmly, in one short sentence.\n${XSS_TEMPLATE}`);
    const messages = page.getByRole('textbox', { name: 'Messages (JSON)' });
    await messages.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(JSON.stringify([{ role: 'user', content: XSS_MESSAGE }]));
    const parameters = page.getByRole('textbox', { name: 'Parameters (JSON)' });
    await parameters.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('{"max_tokens": 12}');
    await page.getByLabel('Variable name').fill('Grace');
    await page.getByRole('button', { name: 'Run without saving' }).click();
    const answer = page.getByRole('region', { name: 'Draft output' });
    await answer.getByText(XSS_MESSAGE).waitFor();
    await noScriptRan();
    await accessible('playground with markup', { picture: false });
    await page.getByLabel('What changed (optional)').fill('warmer greeting');
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page.getByRole('status').getByText('Saved as v2.').waitFor();
    await noScriptRan();
  });

  it('the diff of versions 1 and 2 shows the changed line', async () => {
    await page.getByRole('link', { name: 'Back to demo-prompt' }).click();
    await choose('From', 'v1');
    await choose('To', 'v2');
    await page.getByRole('link', { name: 'Show the diff of v1 and v2' }).click();
    const changed = page.locator('.cm-merge-b .cm-changedLine');
    await changed.first().waitFor();
    expect(await changed.allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('Version two <img src=x'), expect.stringContaining('"max_tokens":12')]),
    );
    expect(await page.locator('.cm-merge-a .cm-changedLine').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('Greet {{name}}')]),
    );
    await noScriptRan();
    await accessible('diff with markup', { picture: false });
  });

  it('deploys version 2 to production and rolls back to version 1, each confirmed, each seen through the invoke API', async () => {
    expect(await productionAnswer()).toBe(COUNTED);
    await page.getByRole('link', { name: 'Back to demo-prompt' }).click();
    await page.getByRole('button', { name: 'Deploy v2' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Deploy to production' }).click();
    await page.getByRole('cell', { name: 'v2', exact: true }).first().waitFor();
    await page.getByRole('button', { name: 'Roll back production to v1' }).waitFor();
    expect(await productionAnswer()).toBe(V2_ANSWER);

    await page.getByRole('button', { name: 'Roll back production to v1' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Deploy v1 to production' }).click();
    // Back to v2 is forward now: labelled as the deploy it is.
    await page.getByRole('button', { name: 'Deploy v2 to production', exact: true }).waitFor();
    expect(await productionAnswer()).toBe(COUNTED);
  });

  it('filters the logs by the prompt, opens the newest log, and opens it in the playground pre-filled', async () => {
    await page.getByRole('link', { name: 'Logs', exact: true }).click();
    await page.getByRole('heading', { name: 'Logs', exact: true }).waitFor();
    await choose('Prompt', 'demo-prompt');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/\/console\/logs\?slug=demo-prompt$/);
    await page.getByRole('table').waitFor();
    // Version, model, provider and key: kept in the URL, one API request for the filtered page.
    await page.getByLabel('Version', { exact: true }).fill('2');
    await page.getByLabel('Model', { exact: true }).fill('echo');
    await page.getByLabel('Provider', { exact: true }).fill('local');
    const apiCalls: string[] = [];
    const onRequest = (req: { url(): string }) => void (new URL(req.url()).pathname.startsWith('/v2/') && apiCalls.push(req.url()));
    page.on('request', onRequest);
    const answered = page.waitForResponse((res) => new URL(res.url()).pathname === '/v2/logs');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/\/console\/logs\?slug=demo-prompt&version=2&model=echo&provider=local$/);
    await answered;
    // The previous page stays shown until the filtered one arrives: wait for its v1 rows to go.
    await page.getByRole('table').getByRole('cell', { name: 'v1', exact: true }).first().waitFor({ state: 'detached' });
    await page.getByRole('table').getByRole('cell', { name: 'v2', exact: true }).first().waitFor();
    page.off('request', onRequest);
    expect(apiCalls.map((url) => new URL(url).pathname)).toEqual(['/v2/logs']);
    expect(await page.getByRole('table').getByRole('cell', { name: 'v1', exact: true }).count()).toBe(0);
    const filtered = await api('GET', '/v2/logs?slug=demo-prompt&version=2&model=echo&provider=local', { cookie: projectCookie });
    expect(await page.getByRole('table').getByRole('row').count()).toBe(filtered.body.data.length + 1);
    await accessible('logs-filtered');
    await page.goBack();
    await page.waitForURL(/\/console\/logs\?slug=demo-prompt$/);
    await page.getByRole('table').getByRole('cell', { name: 'v1', exact: true }).first().waitFor();
    await accessible('logs');
    await page.getByRole('table').getByRole('link').first().click();
    await page.getByRole('list', { name: 'Rendered request' }).getByText('Greet Ada warmly, in one short sentence.').waitFor();
    await page.getByRole('list', { name: 'Rendered request' }).getByText(COUNTED).waitFor();
    await page.getByRole('list', { name: 'Response' }).getByText(COUNTED).waitFor();
    await accessible('log of demo-prompt', { picture: false });
    // The newest log's key: the project key signed in here; its logs are one click away.
    await page.getByRole('link', { name: /^Logs of this key/ }).click();
    await page.waitForURL(/\/console\/logs\?keyId=[0-9a-f-]{36}$/);
    const keyId = new URL(page.url()).searchParams.get('keyId')!;
    await page.getByRole('table').waitFor();
    const ofKey = await api('GET', `/v2/logs?keyId=${keyId}&limit=50`, { cookie: projectCookie });
    expect(ofKey.body.data.length).toBeGreaterThan(0);
    expect(await page.getByRole('table').getByRole('row').count()).toBe(ofKey.body.data.length + 1);
    await page.goBack();
    await page.getByRole('link', { name: 'Open in playground' }).click();
    await page.getByRole('textbox', { name: 'Template message 1 (system)' }).waitFor();
    expect(await page.getByLabel('Variable name').inputValue()).toBe('Ada');
    expect(await page.getByText('Editing a draft based on v1.').count()).toBe(1);
  });

  it('opens the thread of an assistant call as a transcript, user text rendered as text', async () => {
    const call = await api('POST', '/default/default/demo-assistant/production', {
      key: projectKey,
      body: { messages: [{ role: 'user', content: XSS_MESSAGE }] },
    });
    expect(call.status).toBe(200);
    await page.getByRole('link', { name: 'Threads', exact: true }).click();
    await page.getByRole('heading', { name: 'Threads', exact: true }).waitFor();
    await accessible('threads');
    await page.getByRole('table').getByRole('link').first().click();
    const transcript = page.getByRole('list', { name: 'Transcript' });
    await transcript.getByText(XSS_MESSAGE).first().waitFor();
    expect(await transcript.getByRole('link', { name: 'call log' }).count()).toBeGreaterThan(0);
    await noScriptRan();
    await accessible('thread with markup', { picture: false });

    // Continue it from the playground: the run goes to a copy of the thread, with its history.
    await page.getByRole('link', { name: 'Continue in the playground (demo-assistant)' }).click();
    const messages = page.getByRole('textbox', { name: 'Messages (JSON)' });
    await messages.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(JSON.stringify([{ role: 'user', content: 'Second turn from the playground' }]));
    await page.getByRole('button', { name: 'Run without saving' }).click();
    await page.getByRole('region', { name: 'Draft output' }).getByText('Second turn from the playground').waitFor();
    await page.getByRole('link', { name: /^Thread / }).click();
    await page.getByRole('list', { name: 'Transcript' }).getByText('Second turn from the playground').first().waitFor();
    expect(await page.getByRole('list', { name: 'Transcript' }).getByText(XSS_MESSAGE).count()).toBeGreaterThan(0);

    // The thread list filtered by metadata, the filter kept in the URL.
    const tagged = await api('POST', '/v2/threads', { key: projectKey, body: { metadata: { team: 'browser-test' } } });
    expect(tagged.status).toBe(200);
    await page.getByRole('link', { name: 'Threads', exact: true }).click();
    await page.getByLabel('Metadata', { exact: true }).fill('team:browser-test');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/\/console\/threads\?metadata=team%3Abrowser-test$/);
    await page.getByRole('table').getByRole('link', { name: tagged.body.id }).waitFor();
    // The unfiltered list shows the tagged thread too, and is replaced once the filtered page
    // arrives: wait for the table to hold one row besides its header (or time out) before counting.
    expect(await settledCount(page.getByRole('table').getByRole('row'), 2)).toBe(2);
    await accessible('threads-filtered');
  });

  it('shows usage from the rollups: the calls made above, split by prompt', async () => {
    await page.getByRole('link', { name: 'Usage', exact: true }).click();
    await page.getByRole('heading', { name: 'Usage', exact: true }).waitFor();
    const totals = page.getByRole('definition').first();
    await totals.waitFor();
    expect(Number(await totals.textContent())).toBeGreaterThanOrEqual(6);
    await page.getByRole('table').getByRole('cell', { name: 'demo-prompt', exact: true }).first().waitFor();
    await accessible('usage');
  });

  it("runs a draft's own provider and tools without saving them, then saves them as a new version", async () => {
    const weather = {
      type: 'function',
      function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
    };
    await page.goto(`${server.url}/console/prompts/demo-prompt/playground?from=1`);
    const replace = async (name: string, text: string) => {
      await page.getByRole('textbox', { name }).click();
      await page.keyboard.press('Control+A');
      await page.keyboard.insertText(text);
    };
    await replace('Tools (JSON)', JSON.stringify([weather]));
    await replace('Messages (JSON)', JSON.stringify([{ role: 'user', content: 'What is the weather in Oslo?' }]));
    await page.getByLabel('Variable name').fill('Ada');
    // The draft's provider is what the run uses: one the project lacks is refused by name.
    await page.getByLabel('Provider', { exact: true }).fill('no-such-provider');
    await page.getByRole('button', { name: 'Run without saving' }).click();
    await page.getByText(/Unknown provider "no-such-provider"/).waitFor();
    await page.getByLabel('Provider', { exact: true }).fill('local');
    await page.getByRole('button', { name: 'Run without saving' }).click();
    const output = page.getByRole('region', { name: 'Draft output' });
    await output.locator('.tool-call').getByText('get_weather', { exact: true }).waitFor();
    // Run, not saved: the latest version is still 2, without tools.
    const versions = await api('GET', '/v2/prompts/demo-prompt/versions', { cookie: projectCookie });
    expect(versions.body.data.map((v: { version: number; tools: unknown[] }) => [v.version, v.tools])).toEqual(
      expect.arrayContaining([
        [2, []],
        [1, []],
      ]),
    );
    expect(versions.body.data.some((v: { version: number }) => v.version === 3)).toBe(false);
    const ran = await api('GET', '/v2/logs?slug=demo-prompt&limit=1', { cookie: projectCookie });
    expect([ran.body.data[0].provider, JSON.parse(ran.body.data[0].requestData).tools]).toEqual(['local', [weather]]);
    await accessible('playground-tools');

    await page.getByLabel('What changed (optional)').fill('weather tool');
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page.getByRole('status').getByText('Saved as v3.').waitFor();
    const saved = await api('GET', '/v2/prompts/demo-prompt/versions/3', { cookie: projectCookie });
    expect([saved.body.provider, saved.body.tools]).toEqual(['local', [weather]]);
  });

  it("a project-key session finds another project's prompts, logs, threads and keys not found, its usage out of reach", async () => {
    const ws = (otherWorkspace = `other-${Date.now()}`);
    expect((await api('POST', '/v2/workspaces', { key: adminKey, body: { slug: ws } })).status).toBe(200);
    expect((await api('POST', `/v2/workspaces/${ws}/projects`, { key: adminKey, body: { slug: 'p' } })).status).toBe(200);
    const otherKey = (await api('POST', `/v2/workspaces/${ws}/projects/p/api-keys`, { key: adminKey, body: { name: 'other' } })).body
      .key as string;
    await api('POST', '/v2/prompts', { key: otherKey, body: { slug: 'secret-prompt', kind: 'assistant' } });
    await api('POST', '/v2/prompts/secret-prompt/versions', {
      key: otherKey,
      body: { template: [{ role: 'system', content: 'secret' }], model: 'echo' },
    });
    await api('POST', '/v2/prompts/secret-prompt/deployments', { key: otherKey, body: { environment: 'production' } });
    expect(
      (await api('POST', `/${ws}/p/secret-prompt/production`, { key: otherKey, body: { messages: [{ role: 'user', content: 'hi' }] } }))
        .status,
    ).toBe(200);
    const otherLog = (await api('GET', '/v2/logs?limit=1', { key: otherKey })).body.data[0];

    expect((await api('GET', '/v2/prompts/secret-prompt', { cookie: projectCookie })).status).toBe(404);
    expect((await api('GET', '/v2/prompts/secret-prompt/versions', { cookie: projectCookie })).status).toBe(404);
    expect((await api('GET', `/v2/logs/${otherLog.id}`, { cookie: projectCookie })).status).toBe(404);
    expect((await api('GET', `/v2/threads/${otherLog.threadId}`, { cookie: projectCookie })).status).toBe(404);
    expect((await api('GET', `/v2/threads/${otherLog.threadId}/messages`, { cookie: projectCookie })).status).toBe(404);
    expect((await api('GET', `/v2/workspaces/${ws}/projects/p/api-keys`, { cookie: projectCookie })).status).toBe(404);
    const otherKeyId = (await api('GET', `/v2/workspaces/${ws}/projects/p/api-keys`, { key: adminKey })).body.data[0].id as string;
    expect(
      (await api('DELETE', `/v2/workspaces/default/projects/default/api-keys/${otherKeyId}`, { cookie: projectCookie, csrf: true })).status,
    ).toBe(404);
    expect((await api('GET', '/v2/threads', { key: otherKey })).status).toBe(200);
    // Usage: a project session reports on its own project only; naming another is refused.
    const from = new Date(Date.now() - 86_400_000).toISOString();
    expect((await api('GET', `/v2/usage?from=${from}&workspace=${ws}&project=p`, { cookie: projectCookie })).status).toBe(400);
    const own = await api('GET', `/v2/usage?from=${from}&group_by=prompt`, { cookie: projectCookie });
    expect(own.status).toBe(200);
    expect(own.body.data.map((row: { prompt: string }) => row.prompt)).not.toContain('secret-prompt');
    await page.goto(`${server.url}/console/prompts/secret-prompt`);
    await page.getByRole('alert').getByText('Prompt not found').waitFor();
  });

  it('with the project key it signed in with: creates a key (it works on the API) and revokes it (401 on the API)', async () => {
    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    await page.getByRole('heading', { name: 'Keys of default/default', exact: true }).waitFor();
    await page.getByLabel("New key's name").fill('browser-test');
    await page.getByRole('button', { name: 'Create a key' }).click();
    const secret = (await page.getByLabel('New key', { exact: true }).textContent())!.trim();
    expect(secret).toMatch(/^pk_/);
    expect((await api('GET', '/v2/threads', { key: secret })).status).toBe(200);
    await accessible('keys');
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Revoke browser-test' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke' }).click();
    await page.getByText(/^revoked /).waitFor();
    expect((await api('GET', '/v2/threads', { key: secret })).status).toBe(401);
    // The audit trail names the signed-in project key as who made and revoked it.
    const audit = await api('GET', '/v2/audit?limit=20', { cookie: projectCookie });
    const events = audit.body.data.filter(
      (e: { after: { name?: string } | null; before: { name?: string } | null }) => (e.after ?? e.before)?.name === 'browser-test',
    );
    expect(
      events.map((e: { action: string; actor: { kind: string; keyName: string } }) => [e.action, e.actor.kind, e.actor.keyName]),
    ).toEqual(
      expect.arrayContaining([
        ['api_key.created', 'project', 'default'],
        ['api_key.revoked', 'project', 'default'],
      ]),
    );
  });

  it('with the admin key: picks a project in the header, and the keys, prompts, logs and threads screens follow it', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Parley', exact: true }).waitFor();
    await page.getByLabel('API key').fill(adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Keys and limits', exact: true }).waitFor();
    // No project picked yet: the keys screen and the project screens say what to do.
    await page.getByRole('heading', { name: 'Pick a project' }).waitFor();
    await page.goto(`${server.url}/console/logs`);
    await page.getByRole('heading', { name: 'Pick a project' }).waitFor();
    const switcher = page.getByRole('group', { name: 'Project switcher' });
    await chooseProject('default', 'default', switcher);
    await page.getByRole('link', { name: 'Keys and limits', exact: true }).click();
    await page.getByRole('button', { name: 'Revoke default' }).waitFor();
    await page
      .getByText(/^revoked /)
      .first()
      .waitFor();
    await accessible('admin-keys');
    await page.getByRole('link', { name: 'Prompts', exact: true }).click();
    await page.getByRole('link', { name: 'demo-prompt' }).waitFor();
    await accessible('admin-prompts');
    await page.getByRole('link', { name: 'Logs', exact: true }).click();
    await page.getByRole('table').getByRole('link').first().waitFor();
    const own = await api('GET', '/v2/logs?limit=50', { key: projectKey });
    // The first rows can be a page the console still held while the project's list loads: wait for
    // the list before counting.
    const rows = own.body.data.length + 1;
    expect(await settledCount(page.getByRole('table').getByRole('row'), rows)).toBe(rows);
    await page.getByRole('link', { name: 'Threads', exact: true }).click();
    // The newest thread is the one made with metadata above; the playground's copy of the assistant's is next.
    await page.getByRole('table').getByRole('link').nth(1).click();
    await page.getByRole('list', { name: 'Transcript' }).getByText('Second turn from the playground').first().waitFor();
    // The other workspace's project: its own prompt, and none of default's.
    await chooseProject(otherWorkspace, 'p', switcher);
    await page.getByRole('link', { name: 'Prompts', exact: true }).click();
    await page.getByRole('link', { name: 'secret-prompt' }).waitFor();
    expect(await page.getByRole('link', { name: 'demo-prompt' }).count()).toBe(0);
    await accessible('admin-switched');
  });

  it('signs out: the session cookie is refused afterwards', async () => {
    const cookie = (await browser.context.cookies()).find((c) => c.name === 'parley_session')!;
    const adminCookie = `parley_session=${cookie.value}`;
    expect((await api('GET', '/v2/workspaces', { cookie: adminCookie })).status).toBe(200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Parley', exact: true }).waitFor();
    expect((await api('GET', '/v2/workspaces', { cookie: adminCookie })).status).toBe(401);
    // The project session was signed out the same way earlier.
    expect((await api('GET', '/v2/prompts', { cookie: projectCookie })).status).toBe(401);
  });
});
