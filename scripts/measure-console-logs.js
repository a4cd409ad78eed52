#!/usr/bin/env node
// The console's speed check on a big logs table (docs/console.md, "Speed on a large logs table"):
// `DATABASE_URL=... PARLEY_KEY=... node scripts/measure-console-logs.js [slug]` after `npm run build` and
// scripts/seed-logs.js. Starts the built server on that database, signs in as the console does, then
// times the API calls behind the logs screen (first page, a filtered page, the next page; p50/p95 of
// 100 calls each after 10 warm-up calls) and, in Debian's chromium, the screen itself (navigation to the
// first row shown, median and worst of 5 loads each).
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const CALLS = 100;
const LOADS = 5;

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function startServer() {
  const child = spawn(process.execPath, [path.join(root, 'dist', 'main.js')], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      text += chunk;
      const match = /(?:Swagger UI: |listening on )(http:\/\/[\d.]+:\d+)/.exec(text);
      if (match) resolve({ child, url: match[1] });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited (${code}):\n${text}`)));
  });
}

async function timeCalls(url, cookie) {
  const times = [];
  let body;
  for (let i = 0; i < CALLS + 10; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers: { Cookie: cookie } });
    body = await res.json();
    if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
    if (i >= 10) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), rows: body.data.length, lastId: body.last_id };
}

async function main() {
  const key = process.env.PARLEY_KEY;
  if (!process.env.DATABASE_URL || !key)
    throw new Error('set DATABASE_URL (the seeded database) and PARLEY_KEY (a key of the seeded project)');
  const slug = process.argv[2] ?? 'summarize';
  const server = await startServer();
  try {
    const signIn = await fetch(`${server.url}/v2/console/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ key }),
    });
    if (!signIn.ok) throw new Error(`sign-in: ${signIn.status}`);
    const cookie = signIn.headers.get('set-cookie').split(';')[0];
    const filter = `slug=${slug}&status=error`;
    const first = await timeCalls(`${server.url}/v2/logs?limit=50`, cookie);
    const filtered = await timeCalls(`${server.url}/v2/logs?limit=50&${filter}`, cookie);
    const next = await timeCalls(`${server.url}/v2/logs?limit=50&${filter}&after=${filtered.lastId}`, cookie);
    // The filters by version, model, provider and key (their own keyset indexes).
    const keyId = (await (await fetch(`${server.url}/v2/logs?limit=1&order=asc`, { headers: { Cookie: cookie } })).json()).data[0]
      ?.projectAPIKeyId;
    const more = [`slug=${slug}&version=2`, 'model=echo-mini', 'provider=local', ...(keyId ? [`keyId=${keyId}`] : [])];
    const rows = [
      ['GET /v2/logs?limit=50 (first page)', first],
      [`GET /v2/logs?limit=50&${filter}`, filtered],
      [`the same, next page (after=)`, next],
    ];
    for (const query of more)
      rows.push([
        `GET /v2/logs?limit=50&${query.replace(keyId, '<key id>')}`,
        await timeCalls(`${server.url}/v2/logs?limit=50&${query}`, cookie),
      ]);
    console.log('| API call | rows | p50 ms | p95 ms |\n|---|---|---|---|');
    for (const [name, r] of rows) console.log(`| ${name} | ${r.rows} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} |`);

    const { chromium } = require('playwright-core');
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-chromium-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
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
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto(`${server.url}/console/sign-in`);
      await page.getByLabel('API key').fill(key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Prompts and assistants' }).waitFor();
      console.log('\n| Screen (full page load in chromium, to the first row shown) | median ms | worst ms |\n|---|---|---|');
      for (const [name, url] of [
        ['/console/logs', '/console/logs'],
        [`/console/logs?${filter}`, `/console/logs?${filter}`],
      ]) {
        const times = [];
        for (let i = 0; i < LOADS + 1; i++) {
          const started = performance.now();
          await page.goto(`${server.url}${url}`);
          await page.locator('table tbody tr').first().waitFor();
          if (i > 0) times.push(performance.now() - started);
        }
        times.sort((a, b) => a - b);
        console.log(`| ${name} | ${percentile(times, 50).toFixed(0)} | ${times[times.length - 1].toFixed(0)} |`);
      }
    } finally {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    }
  } finally {
    server.child.kill('SIGTERM');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
