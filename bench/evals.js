'use strict';
/**
 * Experiment runs under load (docs/evals.md, docs/performance.md "Experiment runs"): what one large
 * run costs the server, and what it does to another project's calls meanwhile. Loopback only.
 *
 *   node bench/evals.js          (after `nest build`): a server of its own on a fresh database
 *   npm run bench                runs the same measurement as its last section, on the bench's server
 *
 * 1. A project `bench/evals` (through the REST API, as an operator): an `openai` credential on the
 *    bench's fake upstream (bench/lib/fake-upstream.js: answers at once, in its own process, the
 *    floor upstream of every bench script), a prompt version, a dataset of BENCH_EVALS_ITEMS
 *    (10,000) items added 1,000 per call, and two deterministic graders: `echoes` (equals the
 *    item's expected text: every even item expects the echo of its question) and `mentions`
 *    (contains "Question": every item).
 * 2. Idle baseline: another project (`bench/perf`, the bench's deployed prompt) is called on
 *    `POST /bench/perf/bench-prompt/production` at a steady BENCH_EVALS_PROBE_RPS (20) requests/s,
 *    open loop (each request sent at its time, whatever the others do; at most 32 in flight),
 *    for BENCH_EVALS_IDLE_SEC (8) s.
 * 3. The run: the experiment at concurrency BENCH_EVALS_CONCURRENCY (32) over the dataset, with the
 *    same paced calls of the other project for as long as it runs (at most 110 s: the loops are bounded).
 * 4. The idle baseline again (the machine's speed drifts: the two idle windows are pooled).
 *
 * Figures:
 * - wall time: the run's own startedAt → finishedAt (server clock), and items/s;
 * - added cost per item: CPU time (user + system, /proc/<pid>/stat, all threads) of the Parley
 *   process over the run's window, minus what it spends without the run over as long (its CPU per
 *   second in the idle windows: the paced calls and its own background work), divided by the items.
 *   The upstream is a process of its own: its CPU is not in that figure and is reported beside it
 *   (what a real provider would spend), as is PostgreSQL's (the bench database's backends, found
 *   through pg_stat_activity, the idle share taken off the same way), the whole machine's busy
 *   time per item, and the share of the machine other processes used meanwhile;
 * - the paced calls' p50 during the run ÷ their p50 idle (target ≤ 2×), and p90/p99 beside it.
 * Then the run is checked: completed, one stored item row per dataset item, totals as expected.
 *
 * Standalone it prints the JSON summary and writes bench/results/evals-<timestamp>.json and
 * bench/results/evals-latest.json (only evals-latest.json is kept in git; a run with any
 * BENCH_EVALS_* setting changed, or BENCH_PARLEY_MAIN (another build's main.js, as in
 * bench/run.js), is partial and leaves evals-latest.json alone). Within `npm run bench` the same
 * summary is the `evals` field of its report (BENCH_QUICK: 2,000 items, 3 s idle windows).
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('pg');
const { createDatabase, monitor, runTool } = require('./lib/database');
const { runLoad } = require('./lib/load');
const { cpuMicros, machineJiffies, memoryMB, startNode } = require('./lib/processes');
const { USER_MESSAGE, VARIABLES } = require('./lib/scenarios');
const { setUpParley } = require('./lib/setup');
const { summarize } = require('./lib/stats');

const DEFAULTS = { items: 10_000, concurrency: 32, probeRps: 20, idleSec: 8 };
/** BENCH_QUICK's: a quick look. */
const QUICK = { items: 2000, concurrency: 32, probeRps: 20, idleSec: 3 };
/** The settings, BENCH_EVALS_* over the defaults (or BENCH_QUICK's). */
const evalSettings = (quick = false) => {
  const base = quick ? QUICK : DEFAULTS;
  return {
    items: Number(process.env.BENCH_EVALS_ITEMS || base.items),
    concurrency: Number(process.env.BENCH_EVALS_CONCURRENCY || base.concurrency),
    probeRps: Number(process.env.BENCH_EVALS_PROBE_RPS || base.probeRps),
    idleSec: Number(process.env.BENCH_EVALS_IDLE_SEC || base.idleSec),
  };
};
/** The run's window is bounded: a run still going after this long is reported as not finished. */
const MAX_RUN_SEC = 110;
const MAX_IN_FLIGHT = 32;
const P50_RATIO_LIMIT = 2;
const ROOT = path.resolve(__dirname, '..');
const RESULTS = path.join(__dirname, 'results');
/** Another build's main.js (bench/.builds/…), as in bench/run.js: a partial run. */
const PARLEY_MAIN = path.resolve(process.env.BENCH_PARLEY_MAIN || path.join(ROOT, 'dist', 'main.js'));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (v, digits = 1) => (v === null || !Number.isFinite(v) ? null : Math.round(v * 10 ** digits) / 10 ** digits);

async function call(baseUrl, key, method, pathname, body) {
  const res = await fetch(`${baseUrl}${pathname}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${pathname} answered ${res.status}: ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : null;
}

const questionOf = (i) => `Question ${i}: what comes after ${i}?`;

/** The experiment's project, credential, prompt, dataset and graders; answers its key. */
async function setUpEvals(baseUrl, adminKey, upstreamUrl, items, log) {
  await call(baseUrl, adminKey, 'POST', '/v2/workspaces/bench/projects', { slug: 'evals', name: 'Experiments' });
  const { key } = await call(baseUrl, adminKey, 'POST', '/v2/workspaces/bench/projects/evals/api-keys', { name: 'bench-evals' });
  await call(baseUrl, key, 'POST', '/v2/provider-credentials', { name: 'fake', type: 'openai', baseUrl: upstreamUrl, apiKey: 'sk-bench' });
  await call(baseUrl, key, 'POST', '/v2/prompts', { slug: 'eval-target', kind: 'prompt' });
  await call(baseUrl, key, 'POST', '/v2/prompts/eval-target/versions', {
    template: [{ role: 'system', content: 'You are a concise assistant. Answer in {{language}}.' }],
    provider: 'fake',
    model: 'gpt-bench',
    parameters: { temperature: 0, max_tokens: 32 },
    variables: { language: 'English' },
  });
  await call(baseUrl, key, 'POST', '/v2/datasets', { name: 'bench-items', description: 'npm run bench: experiment runs' });
  const started = Date.now();
  for (let from = 0; from < items; from += 1000) {
    const chunk = Array.from({ length: Math.min(1000, items - from) }, (_, k) => {
      const i = from + k;
      return { messages: [{ role: 'user', content: questionOf(i) }], expected: i % 2 === 0 ? questionOf(i) : `${i + 1}` };
    });
    await call(baseUrl, key, 'POST', '/v2/datasets/bench-items/items', { items: chunk });
  }
  log(`(evals) ${items} items added in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await call(baseUrl, key, 'PUT', '/v2/graders/echoes', { config: { type: 'equals' } });
  await call(baseUrl, key, 'PUT', '/v2/graders/mentions', { config: { type: 'contains', values: ['Question'] } });
  return key;
}

/** One paced call: its status and milliseconds from sending the request to the end of the answer. */
function once(agent, url, headers, body) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
      },
    );
    req.setTimeout(20_000, () => req.destroy(new Error('timeout')));
    req.on('error', (err) => resolve({ error: err.message }));
    req.end(body);
  });
}

/**
 * Calls `target` at `rps` requests/s, open loop, until `done()` or `maxSec`; at most MAX_IN_FLIGHT at
 * once (a call due while that many are out is counted as skipped, not sent late).
 */
async function paced(target, rps, { maxSec, done = () => false }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: MAX_IN_FLIGHT });
  const latencies = [];
  const statuses = {};
  let errors = 0;
  let skipped = 0;
  let inFlight = 0;
  const pending = new Set();
  const interval = 1000 / rps;
  const start = performance.now();
  for (let i = 0; i < Math.ceil(maxSec * rps) && !done(); i++) {
    const wait = start + i * interval - performance.now();
    if (wait > 0) await sleep(wait);
    if (done()) break;
    if (inFlight >= MAX_IN_FLIGHT) {
      skipped++;
      continue;
    }
    inFlight++;
    const sent = once(agent, target.url, target.headers, target.body).then((r) => {
      inFlight--;
      if (r.error) errors++;
      else {
        statuses[r.status] = (statuses[r.status] || 0) + 1;
        if (r.status === 200) latencies.push(r.ms);
      }
      pending.delete(sent);
    });
    pending.add(sent);
  }
  await Promise.all(pending);
  agent.destroy();
  const seconds = (performance.now() - start) / 1000;
  return { seconds, answered200: latencies.length, statuses, errors, skipped, latencyMs: summarize(latencies), raw: latencies };
}

/** CPU so far (µs) of Parley, the upstream, the database's backends and this harness, and the machine's busy time. */
async function cpuSnapshot(ctx) {
  const self = process.cpuUsage();
  return {
    at: performance.now(),
    parley: cpuMicros(ctx.parleyPid) ?? 0,
    upstream: cpuMicros(ctx.upstreamPid) ?? 0,
    harness: self.user + self.system,
    db: await ctx.db.snapshot(),
    machine: machineJiffies(),
  };
}

function cpuBetween(ctx, before, after) {
  return {
    seconds: (after.at - before.at) / 1000,
    parley: after.parley - before.parley,
    upstream: after.upstream - before.upstream,
    harness: after.harness - before.harness,
    db: ctx.db.cpuBetween(before.db, after.db),
    machineBusy: ((after.machine.busy - before.machine.busy) * 1e6) / 100,
  };
}

/** The paced calls alone on the idle server, with the CPU they cost. */
async function idleWindow(ctx, probe, settings, label) {
  ctx.log(`(evals) ${label}: ${settings.probeRps} calls/s of the other project for ${settings.idleSec} s, idle server`);
  const before = await cpuSnapshot(ctx);
  const result = await paced(probe, settings.probeRps, { maxSec: settings.idleSec });
  return { ...result, cpu: cpuBetween(ctx, before, await cpuSnapshot(ctx)) };
}

/**
 * The measurement, on a running Parley set up by setUpParley (bench/lib/setup.js). `ctx`:
 * { parleyUrl, parleyPid, upstreamUrl (ends in /v1), upstreamPid, adminKey, key and promptPath (setUpParley's),
 * databaseUrl, db (lib/database.js monitor), log, warm (load the invoke path first: a fresh server) }.
 */
async function measureEvals(ctx, settings = evalSettings()) {
  const loadAverage = os.loadavg().map((l) => round(l, 2));
  const evalKey = await setUpEvals(ctx.parleyUrl, ctx.adminKey, ctx.upstreamUrl, settings.items, ctx.log);
  const probe = {
    url: `${ctx.parleyUrl}${ctx.promptPath}`,
    headers: { 'x-api-key': ctx.key },
    body: JSON.stringify({ variables: VARIABLES, messages: [USER_MESSAGE] }),
  };
  if (ctx.warm) {
    ctx.log('(evals) warming up the invoke path: 5 s at 8 connections');
    await runLoad(probe, { connections: 8, durationSec: 5 });
  }
  const idleBefore = await idleWindow(ctx, probe, settings, 'idle baseline');

  ctx.log(`(evals) experiment run: ${settings.items} items at concurrency ${settings.concurrency}, the other project's calls beside it`);
  const before = await cpuSnapshot(ctx);
  let peakRss = 0;
  const rssTimer = setInterval(() => {
    const mem = memoryMB(ctx.parleyPid);
    if (mem && mem.rss > peakRss) peakRss = mem.rss;
  }, 200);
  const created = await call(ctx.parleyUrl, evalKey, 'POST', '/v2/evals/runs', {
    name: 'bench',
    dataset: 'bench-items',
    target: { prompt: 'eval-target', version: 1 },
    graders: ['echoes', 'mentions'],
    concurrency: settings.concurrency,
  });
  let run = created;
  let finished = false;
  const probing = paced(probe, settings.probeRps, { maxSec: MAX_RUN_SEC, done: () => finished });
  const deadline = Date.now() + MAX_RUN_SEC * 1000;
  while (Date.now() < deadline) {
    await sleep(250);
    run = await call(ctx.parleyUrl, evalKey, 'GET', `/v2/evals/runs/${created.id}`);
    if (!['queued', 'running'].includes(run.status)) break;
  }
  finished = true;
  const during = await probing;
  const cpu = cpuBetween(ctx, before, await cpuSnapshot(ctx));
  clearInterval(rssTimer);
  ctx.log(`(evals) run ${run.status}: ${run.progress.completed}/${run.progress.total} items`);

  const idleAfter = await idleWindow(ctx, probe, settings, 'idle baseline again');

  const client = new Client({ connectionString: ctx.databaseUrl });
  await client.connect();
  let stored;
  try {
    const { rows } = await client.query(
      `SELECT count(*)::int AS rows, count(DISTINCT item_id)::int AS items, count(*) FILTER (WHERE passed)::int AS passed,
              count(*) FILTER (WHERE status = 'error')::int AS errored
         FROM eval_run_items WHERE run_id = $1`,
      [created.id],
    );
    stored = rows[0];
  } finally {
    await client.end();
  }

  const items = run.progress.completed;
  const wallSec = run.startedAt && run.finishedAt ? (Date.parse(run.finishedAt) - Date.parse(run.startedAt)) / 1000 : null;
  // What the server spends besides the run, per second: the paced calls and its own background work, as measured idle.
  const idleSeconds = idleBefore.cpu.seconds + idleAfter.cpu.seconds;
  const idleRate = (what) => (idleBefore.cpu[what] + idleAfter.cpu[what]) / idleSeconds;
  const besidesRun = (what) => idleRate(what) * cpu.seconds;
  const idleCalls = idleBefore.answered200 + idleAfter.answered200;
  const foreign = cpu.machineBusy - cpu.parley - cpu.db - cpu.upstream - cpu.harness;
  const idle = summarize([...idleBefore.raw, ...idleAfter.raw]);
  const ratio = (a, b) => (a === null || b === null ? null : round(a / b, 2));
  const drop = ({ raw: _raw, cpu: _cpu, ...rest }) => rest;
  const expectedPassed = Math.ceil(settings.items / 2);
  const problems = [];
  if (run.status !== 'completed') problems.push(`run ${run.status}${run.error ? `: ${run.error}` : ''}`);
  if (stored.rows !== settings.items || stored.items !== settings.items)
    problems.push(`${stored.rows} item rows for ${settings.items} items`);
  if (run.progress.completed !== stored.rows || run.progress.passed !== stored.passed) problems.push('totals differ from the item rows');
  if (stored.passed !== expectedPassed || stored.errored !== 0)
    problems.push(`${stored.passed} passed (expected ${expectedPassed}), ${stored.errored} errored`);
  const p50Ratio = ratio(during.latencyMs.p50, idle.p50);
  return {
    loadAverage,
    settings: {
      ...settings,
      graders: ['echoes (equals)', 'mentions (contains)'],
      maxInFlight: MAX_IN_FLIGHT,
      parley: {
        DB_POOL_SIZE: process.env.DB_POOL_SIZE || '10 (default)',
        EVAL_RUNS_CONCURRENCY: process.env.EVAL_RUNS_CONCURRENCY || '2 (default)',
      },
    },
    run: {
      id: run.id,
      status: run.status,
      items,
      errored: run.progress.errored,
      passed: run.progress.passed,
      wallSec: round(wallSec, 2),
      createdToFinishedSec: run.finishedAt ? round((Date.parse(run.finishedAt) - Date.parse(run.createdAt)) / 1000, 2) : null,
      itemsPerSec: wallSec ? round(items / wallSec, 1) : null,
      meanItemCallMs: run.usage.meanLatencyMs,
    },
    costPerItemUs: {
      method:
        "CPU time (user + system, all threads) of the Parley process over the run's window, minus what it spends idle with the paced calls over as long (their rate and its background work, measured in the idle windows), ÷ items; the upstream and PostgreSQL (same subtraction) are processes of their own, reported beside it; machineBusy is the whole machine's busy time, otherProcessesPct the share of the machine used by processes outside the benchmark meanwhile",
      parley: round((cpu.parley - besidesRun('parley')) / items, 0),
      parleyRaw: round(cpu.parley / items, 0),
      postgres: round((cpu.db - besidesRun('db')) / items, 0),
      upstream: round((cpu.upstream - besidesRun('upstream')) / items, 0),
      machineBusy: round(cpu.machineBusy / items, 0),
      parleyCoresUsed: round(cpu.parley / 1e6 / cpu.seconds, 2),
      windowSec: round(cpu.seconds, 2),
      otherProcessesPct: round((100 * foreign) / (cpu.seconds * 1e6 * os.availableParallelism()), 0),
    },
    otherProject: {
      route: `POST ${ctx.promptPath}`,
      rps: settings.probeRps,
      idleBefore: drop(idleBefore),
      duringRun: drop(during),
      idleAfter: drop(idleAfter),
      idle,
      idleCpuPerCallUs: {
        parley: round((idleBefore.cpu.parley + idleAfter.cpu.parley) / idleCalls, 0),
        postgres: round((idleBefore.cpu.db + idleAfter.cpu.db) / idleCalls, 0),
        upstream: round((idleBefore.cpu.upstream + idleAfter.cpu.upstream) / idleCalls, 0),
      },
      p50Ratio,
      p90Ratio: ratio(during.latencyMs.p90, idle.p90),
      p99Ratio: ratio(during.latencyMs.p99, idle.p99),
    },
    target: {
      description: "the other project's p50 during the run ÷ its p50 on the idle server",
      limit: P50_RATIO_LIMIT,
      value: p50Ratio,
      met: p50Ratio === null ? null : p50Ratio <= P50_RATIO_LIMIT,
    },
    parleyPeakRssMB: round(peakRss, 0),
    stored,
    problems,
    loadAverageAtEnd: os.loadavg().map((l) => round(l, 2)),
  };
}

/** The summary lines `npm run bench` and the standalone script print. */
function printEvals(evals) {
  if (evals.error) return console.log(`\nExperiment run: not measured: ${evals.error}`);
  const { run, costPerItemUs: c, otherProject: o, target: t } = evals;
  console.log(
    `\nExperiment run, ${run.items} items at concurrency ${evals.settings.concurrency} (equals + contains graders): ${run.status} in ${run.wallSec} s, ` +
      `${run.itemsPerSec} items/s; CPU per item: Parley ${c.parley} µs (${c.parleyCoresUsed} cores busy), PostgreSQL ${c.postgres} µs, upstream ${c.upstream} µs, ` +
      `machine ${c.machineBusy} µs (other processes ${c.otherProcessesPct} % of the machine)`,
  );
  console.log(
    `Another project at ${o.rps} calls/s: p50 ${o.duringRun.latencyMs.p50} ms during the run, ${o.idle.p50} ms idle (p99 ${o.duringRun.latencyMs.p99} / ${o.idle.p99} ms)` +
      `; load average ${evals.loadAverage.join(' ')} at its start`,
  );
  const verdict = t.met === null ? 'N/A' : t.met ? 'MET' : 'MISSED';
  console.log(`  ${verdict.padEnd(6)} ${t.description}: ${t.value === null ? '-' : `${t.value.toFixed(2)}×`} (target ≤ ${t.limit}×)`);
  if (evals.problems.length) console.log(`  !! ${evals.problems.join('; ')}`);
}

async function main() {
  const started = Date.now();
  const settings = evalSettings();
  const partial = Object.keys(DEFAULTS).some((name) => settings[name] !== DEFAULTS[name]) || Boolean(process.env.BENCH_PARLEY_MAIN);
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '-');
  const adminKey = `ak_bench_${crypto.randomBytes(24).toString('base64url')}`;
  const log = (line) => process.stderr.write(`${line}\n`);
  const databaseUrl = createDatabase(dbName);
  const db = await monitor(dbName);
  try {
    const upstream = await startNode('fake upstream', path.join(__dirname, 'lib', 'fake-upstream.js'));
    const parley = await startNode('Parley', PARLEY_MAIN, {
      env: {
        DATABASE_URL: databaseUrl,
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'warn',
        PROVIDER_ALLOWED_HOSTS: '127.0.0.1',
        PARLEY_ADMIN_KEY: adminKey,
        PARLEY_SECRET_KEY: crypto.randomBytes(32).toString('base64url'),
      },
      readyPattern: /(?:listening on |Swagger UI: )(http:\/\/[^\s/]+)/,
    });
    const setup = await setUpParley(parley.url, adminKey, upstream.url);
    const evals = await measureEvals(
      {
        parleyUrl: parley.url,
        parleyPid: parley.pid,
        upstreamUrl: upstream.url,
        upstreamPid: upstream.pid,
        adminKey,
        key: setup.key,
        promptPath: setup.promptPath,
        databaseUrl,
        db,
        log,
        warm: true,
      },
      settings,
    );
    const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
    const report = {
      timestamp: new Date().toISOString(),
      partial,
      command: `${Object.entries(process.env)
        .filter(([k]) => k.startsWith('BENCH_EVALS_') || k === 'BENCH_PARLEY_MAIN')
        .map(([k, v]) => `${k}=${v} `)
        .join('')}node bench/evals.js`,
      machine: {
        nproc: os.availableParallelism ? os.availableParallelism() : os.cpus().length,
        cpuModel: /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1]?.trim() ?? 'unknown',
        node: process.version,
        postgres: await db.version(),
      },
      ...evals,
      parleyMain: path.relative(ROOT, PARLEY_MAIN),
      wallClockSec: round((Date.now() - started) / 1000, 1),
    };
    fs.mkdirSync(RESULTS, { recursive: true });
    const file = path.join(RESULTS, `evals-${stamp}.json`);
    const json = `${JSON.stringify(report, null, 2)}\n`;
    fs.writeFileSync(file, json);
    if (!partial) fs.writeFileSync(path.join(RESULTS, 'evals-latest.json'), json);
    console.log(json);
    printEvals(evals);
    console.log(
      `\nresults: ${path.relative(process.cwd(), file)}${partial ? ' (BENCH_EVALS_* changed: evals-latest.json left as it was)' : ' and bench/results/evals-latest.json'}`,
    );
    if (evals.problems.length) process.exitCode = 1;
  } finally {
    await db.close();
  }
}

const dbName = `parley_bench_evals_${Date.now()}_${process.pid}`;
if (require.main === module) runTool(main, () => [dbName]);

module.exports = { evalSettings, measureEvals, printEvals };
