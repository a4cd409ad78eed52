import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's chromium (`apt-get install chromium`, .ci/run); nothing is downloaded. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = path.resolve(__dirname, '..', '..', 'docs', 'console');

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** One headless chromium with a fresh profile, no background traffic, no sandbox (CI runs as root), no reliance on a large /dev/shm (containers). */
export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(path.join(tmpdir(), 'parley-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: [
      '--no-sandbox',
      '--disable-dev-shm-usage',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** What `callApi` answers: the status, the headers and the parsed JSON body (null when empty). */
export interface ApiAnswer {
  status: number;
  headers: Headers;
  /** Parsed JSON: the tests read the fields they expect. */
  body: any;
}

/** One REST call to the server under test with a key, as the browser tests set up and check their data. */
export async function callApi(url: string, key: string, method: string, path: string, body?: unknown): Promise<ApiAnswer> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** Signs in to the console at `url` with a key, as a person would, and waits for the first screen. */
export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(`${url}/console/sign-in`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Prompts and assistants', exact: true }).waitFor();
}

/** The whole page as docs/console/<name>.png; `fullPage: false` for a dialog (its overlay covers the viewport only). */
export async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage });
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * axe-core's serious and critical findings on the page as it is (WCAG 2.1 A and AA rules). axe is
 * evaluated through the DevTools protocol, which the page's CSP does not govern; the page itself
 * keeps its CSP.
 */
export async function seriousViolations(page: Page): Promise<AxeFinding[]> {
  await page.evaluate(`${AXE_SOURCE}\n;0`);
  const findings: AxeFinding[] = await page.evaluate(`(async () => {
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  })()`);
  return findings.filter((f) => f.impact === 'serious' || f.impact === 'critical');
}

/** The elements that stick out on the right of the window, outside any box that scrolls (or clips) them; none when the page does not scroll sideways. */
export async function sidewaysOverflow(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const width = window.innerWidth;
    if (document.documentElement.scrollWidth <= width) return [];
    const inScroller = (el) => {
      for (let e = el.parentElement; e; e = e.parentElement) if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(e).overflowX)) return true;
      return false;
    };
    return [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > width + 1 && !inScroller(el))
      .slice(-5)
      .map((el) => el.tagName.toLowerCase() + (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') : '') + ' ' + Math.round(el.getBoundingClientRect().right) + 'px');
  })()`);
}
