import type { Locator, Page } from 'playwright-core';

import type { FakeUpstream } from '../../test/fakes/fake-openai-upstream';
import type { SpawnedServer } from '../../test/support/spawn-server';
import { Browser, launchBrowser, seriousViolations, sidewaysOverflow, signIn } from './browser';
import { CONSOLE_TESTS_SECRET_KEY, ConsoleServer, startConsoleServer } from './console-server';
import { startShowcaseUpstream, SUPPORT_PROMPT } from './showcase';
import { seedEverything, Showcased } from './showcase-all';
import { DATASET } from './showcase-evals';

/**
 * Every console screen at 1440 and 390 px wide, in the light and the dark theme (docs/testing.md,
 * "The console matrix"): axe-core finds no serious or critical violation on any, and at 390 px the
 * page never scrolls sideways (a wide table scrolls inside its box). Then the header's theme switch,
 * and the keyboard alone: the skip link, a visible focus ring in both themes, the menu button of a
 * narrow screen, a dialog that keeps the focus until it closes. One server, one browser, the
 * showcase project with something on every screen (showcase-all.ts).
 */
interface Screen {
  name: string;
  path: (ids: Showcased) => string;
  /** What shows once the screen has its content (axe then checks the screen as a person sees it). */
  ready: (page: Page) => Locator;
  signedOut?: boolean;
  /** Shown to the admin key only (workspaces and projects): visited with the admin key's session. */
  asAdmin?: boolean;
}
/** A prompt the matrix archives, so the archived list has a row. */
const ARCHIVED = 'faq-2025';
/** The keys screen's first key (the providers it once listed have their own screen). */
const keyRow = (page: Page) =>
  page
    .getByRole('table', { name: /^Keys of / })
    .locator('tbody tr')
    .first();
const heading = (name: string | RegExp) => (page: Page) => page.getByRole('heading', { name, level: 1 });

/** Every route app.tsx defines: adding a screen means adding its row. */
const SCREENS: Screen[] = [
  { name: 'sign-in', path: () => '/sign-in', ready: heading('Sign in to Parley'), signedOut: true },
  { name: 'prompts', path: () => '/prompts', ready: (page) => page.getByRole('link', { name: SUPPORT_PROMPT }) },
  {
    name: 'archived prompts',
    path: () => '/prompts?archived=true',
    ready: (page) => page.getByRole('table', { name: 'Archived prompts and assistants' }).getByRole('link', { name: ARCHIVED }),
  },
  { name: 'prompt', path: () => `/prompts/${SUPPORT_PROMPT}`, ready: (page) => page.getByRole('heading', { name: 'Versions' }) },
  {
    name: 'prompt live',
    path: () => `/prompts/${SUPPORT_PROMPT}?live=production`,
    ready: (page) => page.getByRole('table', { name: /^Configuration of v\d+ in production$/ }).first(),
  },
  {
    name: 'diff',
    path: () => `/prompts/${SUPPORT_PROMPT}/diff?a=1&b=2`,
    ready: (page) => page.locator('.cm-merge-b .cm-changedLine').first(),
  },
  {
    name: 'playground',
    path: () => `/prompts/${SUPPORT_PROMPT}/playground?from=2`,
    ready: (page) => page.getByText('Editing a draft based on v2.'),
  },
  { name: 'split', path: () => `/prompts/${SUPPORT_PROMPT}/split/production`, ready: (page) => page.getByRole('table').first() },
  { name: 'logs', path: () => '/logs', ready: (page) => page.getByRole('table').getByRole('link').first() },
  { name: 'log', path: (ids) => `/logs/${ids.logId}`, ready: (page) => page.getByRole('list', { name: 'Response' }) },
  { name: 'threads', path: () => '/threads', ready: (page) => page.getByRole('table').getByRole('link').first() },
  {
    name: 'thread',
    path: (ids) => `/threads/${ids.threadId}`,
    ready: (page) => page.getByRole('link', { name: /^Continue in the playground/ }),
  },
  { name: 'usage', path: () => '/usage', ready: (page) => page.getByRole('table') },
  { name: 'datasets', path: () => '/datasets', ready: (page) => page.getByRole('link', { name: DATASET }) },
  { name: 'dataset', path: () => `/datasets/${DATASET}`, ready: (page) => page.getByRole('table').locator('tbody tr').first() },
  { name: 'graders', path: () => '/graders', ready: (page) => page.getByRole('cell', { name: 'mentions-expected' }).first() },
  { name: 'runs', path: () => '/evals/runs', ready: (page) => page.getByRole('table').getByRole('link').first() },
  { name: 'run', path: (ids) => `/evals/runs/${ids.runV2}`, ready: (page) => heading(/completed/)(page) },
  {
    name: 'compare',
    path: (ids) => `/evals/runs/${ids.runV2}/compare/${ids.runV1}`,
    ready: (page) => page.getByRole('heading', { name: /^Regressed/ }),
  },
  { name: 'members', path: () => '/members', ready: (page) => page.getByRole('cell', { name: /maya\.chen/ }).first() },
  { name: 'approvals', path: () => '/approvals', ready: (page) => page.getByRole('row', { name: new RegExp(SUPPORT_PROMPT) }).first() },
  {
    name: 'environments',
    path: () => '/environments',
    ready: (page) => page.getByRole('table', { name: 'Environments' }).locator('tbody tr').first(),
  },
  {
    name: 'providers',
    path: () => '/providers',
    ready: (page) =>
      page
        .getByRole('table', { name: /^Providers of / })
        .locator('tbody tr')
        .first(),
  },
  {
    name: 'workspaces',
    path: () => '/workspaces',
    ready: (page) => page.getByRole('table', { name: 'Workspaces' }).locator('tbody tr').first(),
    asAdmin: true,
  },
  { name: 'keys', path: () => '/keys', ready: keyRow },
  { name: 'audit', path: () => '/audit', ready: (page) => page.getByRole('table').locator('tbody tr').first() },
  { name: 'no such page', path: () => '/nowhere', ready: heading('No such page') },
];
const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];
const THEMES = ['light', 'dark'] as const;

/** The focused element (a radio's label, which draws its ring), and how its ring is drawn. */
const FOCUSED = `(() => {
  const e = document.activeElement;
  const drawn = e && e.matches('input[type=radio], input[type=checkbox]') ? e.closest('label') : e;
  const style = drawn ? getComputedStyle(drawn) : null;
  return {
    text: drawn ? (e.getAttribute('aria-label') || drawn.textContent || '').trim().slice(0, 40) : '',
    tag: e ? e.tagName.toLowerCase() : '',
    id: e ? e.id : '',
    inDialog: !!(e && e.closest('[role=alertdialog]')),
    inNav: !!(e && e.closest('nav')),
    ring: style ? style.outlineStyle + ' ' + style.outlineWidth + ' ' + style.outlineColor : '',
  };
})()`;
interface Focused {
  text: string;
  tag: string;
  id: string;
  inDialog: boolean;
  inNav: boolean;
  ring: string;
}
/** Every CSS variable of the theme in effect, as the page resolves them. */
const TOKENS = `(() => { const s = getComputedStyle(document.documentElement); return [...document.styleSheets].flatMap((sheet) => [...sheet.cssRules]).flatMap((rule) => rule.style ? [...rule.style].filter((p) => p.startsWith('--')) : []).filter((p, i, all) => all.indexOf(p) === i).map((p) => p + ': ' + s.getPropertyValue(p).trim()); })()`;

describe(`the console at 1440 and 390 px, light and dark (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let server: SpawnedServer;
  let running: ConsoleServer | undefined;
  let upstream: FakeUpstream;
  let browser: Browser;
  let page: Page;
  let ids: Showcased;
  let cookies: Awaited<ReturnType<Browser['context']['cookies']>>;
  let adminCookies: typeof cookies;

  const visit = async (screen: Screen) => {
    if (screen.signedOut || screen.asAdmin) await browser.context.clearCookies();
    if (screen.asAdmin) await browser.context.addCookies(adminCookies);
    try {
      await page.goto(`${server.url}/console${screen.path(ids)}`);
      await screen.ready(page).waitFor({ timeout: 15_000 });
      // A section that loads on its own (the prompt page's experiments) is checked once it has.
      const loading = page.getByText('Loading…');
      for (let waited = 0; waited < 10_000 && (await loading.count()) > 0; waited += 100) await page.waitForTimeout(100);
    } finally {
      if (screen.signedOut || screen.asAdmin) {
        await browser.context.clearCookies();
        await browser.context.addCookies(cookies);
      }
    }
  };
  const focused = async (): Promise<Focused> => page.evaluate(FOCUSED);
  /** Presses Tab until `done` holds for the focused element (at most 80 times). */
  const tabTo = async (done: (f: Focused) => boolean, key = 'Tab') => {
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press(key);
      const now = await focused();
      if (done(now)) return now;
    }
    throw new Error('never focused');
  };

  beforeAll(async () => {
    const started = Date.now();
    upstream = await startShowcaseUpstream();
    running = await startConsoleServer({
      PARLEY_SECRET_KEY: CONSOLE_TESTS_SECRET_KEY,
      PROVIDER_ALLOWED_HOSTS: `127.0.0.1:${new URL(upstream.url).port}`,
    });
    server = running.server;
    const projectKey = running.projectKey;
    const adminKey = running.adminKey;
    ids = await seedEverything(server.url, projectKey, adminKey, upstream.url);
    for (const path of ['/v2/prompts', `/v2/prompts/${ARCHIVED}/archive`]) {
      const res = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': projectKey },
        body: JSON.stringify(path === '/v2/prompts' ? { slug: ARCHIVED, kind: 'prompt' } : {}),
      });
      if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    }
    browser = await launchBrowser();
    page = browser.page;
    // The admin key's session, for the screens only it sees (workspaces and projects).
    await page.goto(`${server.url}/console/sign-in`);
    await page.getByLabel('API key').fill(adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Keys and limits', exact: true }).waitFor();
    adminCookies = await browser.context.cookies();
    await browser.context.clearCookies();
    await signIn(page, server.url, projectKey);
    cookies = await browser.context.cookies();
    console.log(`matrix: server started and seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
  afterAll(async () => {
    await browser?.close();
    await running?.stop();
    await upstream?.close();
  });

  for (const viewport of VIEWPORTS)
    for (const theme of THEMES)
      it(`every screen at ${viewport.width} px in ${theme}: no serious or critical axe finding${viewport.width < 700 ? ', no sideways scroll' : ''}`, async () => {
        const started = Date.now();
        await page.setViewportSize(viewport);
        await page.emulateMedia({ colorScheme: theme });
        const problems: unknown[] = [];
        for (const screen of SCREENS) {
          const shown = await visit(screen).then(
            () => true,
            (error: Error) => problems.push({ screen: screen.name, notShown: error.message.split('\n')[0] }) < 0,
          );
          if (!shown) continue;
          if (process.env.MATRIX_SHOTS)
            await page.screenshot({ path: `${process.env.MATRIX_SHOTS}/${screen.name}-${viewport.width}-${theme}.png`, fullPage: true });
          const violations = await seriousViolations(page);
          if (violations.length > 0) problems.push({ screen: screen.name, violations });
          if (viewport.width < 700) {
            const sticking = await sidewaysOverflow(page);
            if (sticking.length > 0) problems.push({ screen: screen.name, sideways: sticking });
          }
        }
        console.log(
          `matrix: ${SCREENS.length} screens at ${viewport.width} px in ${theme} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
        );
        expect(problems).toEqual([]);
      }, 300_000);

  it("the header's switch sets the theme, keeps it across a reload, and its dark is the system's dark", async () => {
    await page.setViewportSize(VIEWPORTS[0]);
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${server.url}/console/prompts`);
    await page.getByRole('radio', { name: 'System' }).waitFor({ state: 'attached' });
    expect(await page.getByRole('radio', { name: 'System' }).isChecked()).toBe(true);
    const systemDark: string[] = await page.evaluate(TOKENS);
    expect(systemDark).toContain('--bg: #14171f');

    await page.emulateMedia({ colorScheme: 'light' });
    expect(await page.evaluate(TOKENS)).not.toEqual(systemDark);
    await page.getByRole('radiogroup', { name: 'Theme' }).getByText('Dark', { exact: true }).click();
    expect(await page.evaluate('document.documentElement.dataset.theme')).toBe('dark');
    expect(await page.evaluate(TOKENS)).toEqual(systemDark);
    await page.reload();
    await page.getByRole('link', { name: SUPPORT_PROMPT }).waitFor();
    expect(await page.evaluate('document.documentElement.dataset.theme')).toBe('dark');
    expect(await page.getByRole('radio', { name: 'Dark' }).isChecked()).toBe(true);

    // Light under a dark system, then back to the system's.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.getByRole('radiogroup', { name: 'Theme' }).getByText('Light', { exact: true }).click();
    expect(await page.evaluate(TOKENS)).toContain('--bg: #fff');
    await page.getByRole('radiogroup', { name: 'Theme' }).getByText('System', { exact: true }).click();
    expect(await page.evaluate('document.documentElement.dataset.theme ?? null')).toBeNull();
    expect(await page.evaluate('localStorage.getItem("parley.theme")')).toBeNull();
  });

  for (const theme of THEMES)
    it(`the keyboard alone (${theme}): skip link, a focus ring on every stop, a dialog that keeps the focus`, async () => {
      await page.setViewportSize(VIEWPORTS[0]);
      await page.emulateMedia({ colorScheme: theme });
      const ring: string = await page.evaluate(
        `(() => { const p = document.createElement('i'); p.style.color = 'var(--focus)'; document.body.append(p); const c = getComputedStyle(p).color; p.remove(); return c; })()`,
      );
      await page.goto(`${server.url}/console/keys`);
      await keyRow(page).waitFor();

      // The first stop skips the shell: Enter lands in the screen itself.
      await page.keyboard.press('Tab');
      expect(await focused()).toMatchObject({ text: 'Skip to main content', ring: `solid 2px ${ring}` });
      expect((await page.getByRole('link', { name: 'Skip to main content' }).boundingBox())!.y).toBeGreaterThanOrEqual(0);
      await page.keyboard.press('Enter');
      expect((await focused()).id).toBe('main');

      // Through the shell from the top: every stop shows the ring in the theme's focus colour.
      await page.goto(`${server.url}/console/keys`);
      await keyRow(page).waitFor();
      const stops: Focused[] = [];
      for (let i = 0; i < 16; i++) {
        await page.keyboard.press('Tab');
        stops.push(await focused());
      }
      expect(stops.filter((stop) => !stop.ring.startsWith('solid 2px'))).toEqual([]);
      expect(stops.map((stop) => stop.text)).toEqual(expect.arrayContaining(['Prompts', 'Audit', 'Sign out', 'System']));

      // A confirmation dialog keeps the focus (Tab and Shift+Tab) until Escape, which gives it back.
      const revoke = await tabTo((f) => f.text.startsWith('Revoke'));
      await page.keyboard.press('Enter');
      await page.getByRole('alertdialog').waitFor();
      for (const key of ['Tab', 'Tab', 'Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab']) {
        await page.keyboard.press(key);
        expect({ key, ...(await focused()) }).toMatchObject({ key, inDialog: true, ring: `solid 2px ${ring}` });
      }
      await page.keyboard.press('Escape');
      await page.getByRole('alertdialog').waitFor({ state: 'detached' });
      // React Aria gives the focus back once the dialog has gone (a frame later).
      for (let waited = 0; waited < 2000 && (await focused()).text !== revoke.text; waited += 50) await page.waitForTimeout(50);
      expect((await focused()).text).toBe(revoke.text);
    });

  it('at 390 px the menu button opens the sidebar from the keyboard, and a link in it closes it', async () => {
    await page.setViewportSize(VIEWPORTS[1]);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${server.url}/console/prompts`);
    await page.getByRole('link', { name: SUPPORT_PROMPT }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Console' });
    const menu = page.getByRole('button', { name: 'Menu' });
    expect(await nav.isVisible()).toBe(false);
    await tabTo((f) => f.text === 'Menu');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    await page.keyboard.press('Enter');
    await nav.waitFor();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await tabTo((f) => f.inNav && f.text === 'Datasets');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Datasets', level: 1 }).waitFor();
    await nav.waitFor({ state: 'hidden' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
  });
});
