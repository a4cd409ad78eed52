'use strict';
/**
 * `npm run bench`: Parley's overhead over the upstream it calls, measured with autocannon on
 * loopback, side by side in one run. Not a test: it prints a table, writes
 * bench/results/<timestamp>.json (and latest.json) and says which targets of docs/performance.md
 * were met. Everything it starts (fake upstream, bare Nest pass-through, Parley on a fresh
 * PostgreSQL database) is stopped, and the database dropped, even when it fails.
 *
 * Scenarios, each at 1 and 64 connections:
 *   a   the fake upstream directly (non-streamed)            a~  the same, streamed (first byte)
 *   b   a bare NestJS + express pass-through to the upstream (the floor for our stack), with fetch
 *   b'  the same with a node:http client (what Parley's providers use since docs/performance.md)
 *   c   a deployed prompt through Parley
 *   d   an assistant through Parley, appending to threads: per connection, conversations of 10
 *       calls (the first creates the thread, the next 9 continue it)
 *   e   d streamed; its figure is the time to the first byte of the stream
 *
 * Each figure pools BENCH_ROUNDS (3) slices of BENCH_DURATION / rounds seconds (6 s in all), each
 * after BENCH_WARMUP (1) s of warm-up; the scenarios take turns slice by slice.
 *
 * Environment: BENCH_DURATION, BENCH_ROUNDS, BENCH_WARMUP, BENCH_CONNECTIONS ("1,64"), BENCH_ONLY (e.g. "a,c": a partial run, not written to latest.json), BENCH_PROFILE=1
 * (Parley runs with --cpu-prof; profiles in bench/profiles/), BENCH_PARLEY_MAIN (another build's
 * main.js, e.g. to measure a baseline; such a run is not written to latest.json), BENCH_QUIET_PCT /
 * BENCH_QUIET_MAX / BENCH_QUIET_BUDGET (waiting for a quiet machine), BENCH_PGHOST/PORT/USER.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createDatabase, dropDatabase, monitor, probe } = require('./lib/database');
const { runLoad } = require('./lib/load');
const { summarize } = require('./lib/stats');
const { cpuMicros, cpuSplit, killAllNow, machineJiffies, startNode, stopAll } = require('./lib/processes');
const { printReport } = require('./lib/report');
const { setUpParley } = require('./lib/setup');

const ROOT = path.resolve(__dirname, '..');
const RESULTS = path.join(__dirname, 'results');
const DURATION = Number(process.env.BENCH_DURATION || 6);
const WARMUP = Number(process.env.BENCH_WARMUP || 1);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS || 3));
const CONNECTIONS = (process.env.BENCH_CONNECTIONS || '1,64').split(',').map(Number);
const ONLY = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',').map((s) => s.trim()) : null;
const PROFILE = process.env.BENCH_PROFILE === '1';
const QUIET_PCT = Number(process.env.BENCH_QUIET_PCT || 10);
const PARLEY_MAIN = path.resolve(process.env.BENCH_PARLEY_MAIN || path.join(ROOT, 'dist', 'main.js'));
const QUIET_MAX = Number(process.env.BENCH_QUIET_MAX || 15);
const QUIET_BUDGET = Number(process.env.BENCH_QUIET_BUDGET || 90);

const USER_MESSAGE = { role: 'user', content: 'Summarize the release notes in two short sentences please.' };
const VARIABLES = { language: 'English' };

const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '-');
const dbName = `parley_bench_${stamp.replace('-', '_')}_${process.pid}`;
let dbCreated = false;
let cleaningUp = null;

function log(line) {
  process.stderr.write(`${line}\n`);
}

function machineInfo(pgVersion) {
  const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
  const model = /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown';
  return {
    nproc: os.availableParallelism ? os.availableParallelism() : os.cpus().length,
    cpuModel: model,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    postgres: pgVersion,
    kernel: `${os.type()} ${os.release()}`,
  };
}

/** The body Parley sends upstream for scenario c, so that a and b carry the same payload. */
function upstreamBody(stream) {
  return JSON.stringify({
    model: 'gpt-bench',
    messages: [{ role: 'system', content: 'You are a concise assistant for engineers. Answer in English.' }, USER_MESSAGE],
    temperature: 0.2,
    max_tokens: 64,
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });
}

/** Per connection: a conversation of `turns` calls; the first opens the thread, the rest continue it. */
function conversation(pathname, stream, turns = 10) {
  const body = (threadId) => JSON.stringify({ variables: VARIABLES, messages: [USER_MESSAGE], ...(stream ? { stream: true } : {}), ...(threadId ? { threadId } : {}) });
  const remember = (status, _body, context, headers) => {
    const id = headers['x-parley-thread-id'] ?? headers['X-Parley-Thread-Id'];
    if (status === 200 && typeof id === 'string') context.threadId = id;
  };
  return Array.from({ length: turns }, (_, i) =>
    i === 0
      ? { method: 'POST', path: pathname, body: body(undefined), onResponse: remember }
      : { method: 'POST', path: pathname, setupRequest: (req, context) => ({ ...req, body: body(context.threadId) }), onResponse: remember },
  );
}

/** One request outside the load, to fail early and clearly when a scenario does not work. */
async function sanityCheck(scenario) {
  const t = scenario.target;
  const first = t.requests ? t.requests[0] : { path: '', body: t.body };
  const url = t.requests ? new URL(first.path, t.url).href : t.url;
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(t.headers || {}) }, body: first.body });
  const text = await res.text();
  const problem = (why) => new Error(`scenario ${scenario.id} (${scenario.name}): ${why}\n${res.status} ${text.slice(0, 600)}`);
  if (res.status !== 200) throw problem('sanity request failed');
  if (scenario.stream) {
    if (!/^data: /.test(text) || !text.includes('data: [DONE]') || !text.includes('Summarize')) throw problem('not a chat.completion.chunk stream echoing the message');
  } else if (JSON.parse(text).choices?.[0]?.message?.content !== USER_MESSAGE.content) {
    throw problem('the reply does not echo the user message');
  }
  if (scenario.thread && !res.headers.get('x-parley-thread-id')) throw problem('no x-parley-thread-id header');
}

/** CPU (µs) of everything this benchmark runs: the harness (autocannon), its children, the database's backends. */
async function ownCpu(ctx) {
  const self = process.cpuUsage();
  const children = ctx.pids.reduce((sum, pid) => sum + (cpuMicros(pid) ?? 0), 0);
  return { own: self.user + self.system + children, db: await ctx.db.snapshot(), machine: machineJiffies() };
}

/** Share of the machine (all CPUs, %) used by processes that are not part of the benchmark. */
function foreignPct(before, after, ctx) {
  const machineMicros = ((after.machine.busy - before.machine.busy) * 1e6) / 100;
  const totalMicros = ((after.machine.total - before.machine.total) * 1e6) / 100;
  const ours = after.own - before.own + ctx.db.cpuBetween(before.db, after.db);
  return totalMicros > 0 ? Math.max(0, Math.round(((machineMicros - ours) / totalMicros) * 1000) / 10) : 0;
}

/**
 * The machine is shared (other people's test runs): before a measurement, wait (up to
 * BENCH_QUIET_MAX s per run, BENCH_QUIET_BUDGET s in all) until other processes use less than
 * BENCH_QUIET_PCT % of it.
 */
async function waitForQuiet(ctx) {
  const started = Date.now();
  for (;;) {
    const before = await ownCpu(ctx);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const pct = foreignPct(before, await ownCpu(ctx), ctx);
    const waited = (Date.now() - started) / 1000;
    if (pct < QUIET_PCT) return { waitedSec: Math.round(waited * 10) / 10, foreignPct: pct };
    if (waited >= QUIET_MAX || ctx.quietBudget - waited <= 0) {
      log(`  machine not quiet (${pct}% used by other processes), measuring anyway`);
      ctx.quietBudget -= waited;
      return { waitedSec: Math.round(waited * 10) / 10, foreignPct: pct };
    }
  }
}

/** One slice: warm-up, a wait for a quiet machine, then `durationSec` measured, with CPU counters. */
async function measureSlice(scenario, connections, durationSec, ctx) {
  const opts = { connections, ttfb: Boolean(scenario.stream) };
  const warm = WARMUP > 0 ? await runLoad(scenario.target, { ...opts, durationSec: WARMUP }) : { requests: 0 };
  const quiet = await waitForQuiet(ctx);
  const pids = { server: scenario.serverPid(), upstream: ctx.upstream.pid };
  const own0 = await ownCpu(ctx);
  const cpu0 = { server: cpuSplit(pids.server), upstream: cpuMicros(pids.upstream) };
  const result = await runLoad(scenario.target, { ...opts, durationSec });
  const cpu1 = { server: cpuSplit(pids.server), upstream: cpuMicros(pids.upstream) };
  const own1 = await ownCpu(ctx);
  return {
    result,
    warmupRequests: warm.requests,
    quietWaitSec: quiet.waitedSec,
    serverUser: cpu1.server.user - cpu0.server.user,
    serverSys: cpu1.server.sys - cpu0.server.sys,
    upstream: cpu1.upstream - cpu0.upstream,
    db: scenario.usesDb ? ctx.db.cpuBetween(own0.db, own1.db) : 0,
    machineBusy: own1.machine.busy - own0.machine.busy,
    machineTotal: own1.machine.total - own0.machine.total,
    foreignPct: foreignPct(own0, own1, ctx),
  };
}

/** The slices of one scenario at one connection count, as one run: responses pooled, CPU summed. */
function mergeSlices(scenario, connections, slices) {
  const requests = slices.reduce((n, s) => n + s.result.requests, 0);
  const seconds = slices.reduce((n, s) => n + s.result.durationSec, 0);
  const sum = (field) => slices.reduce((n, s) => n + s[field], 0);
  const perReq = (micros) => (requests > 0 ? Math.round(micros / requests) : null);
  const statuses = {};
  for (const s of slices) for (const [code, n] of Object.entries(s.result.statuses)) statuses[code] = (statuses[code] || 0) + n;
  const busyTotal = sum('machineTotal');
  return {
    scenario: scenario.id,
    name: scenario.name,
    connections,
    slices: slices.length,
    durationSec: seconds,
    requests,
    warmupRequests: sum('warmupRequests'),
    non2xx: slices.reduce((n, s) => n + s.result.non2xx, 0),
    errors: slices.reduce((n, s) => n + s.result.errors, 0),
    timeouts: slices.reduce((n, s) => n + s.result.timeouts, 0),
    statuses,
    rps: Math.round((requests / seconds) * 10) / 10,
    latencyMs: summarize(slices.flatMap((s) => s.result.raw.latencies)),
    ...(scenario.stream ? { ttfbMs: summarize(slices.flatMap((s) => s.result.raw.firstBytes)) } : {}),
    cpuPerRequestUs: {
      server: perReq(sum('serverUser') + sum('serverSys')),
      serverUser: perReq(sum('serverUser')),
      serverSys: perReq(sum('serverSys')),
      upstream: scenario.id.startsWith('a') ? null : perReq(sum('upstream')),
      db: scenario.usesDb ? perReq(sum('db')) : null,
    },
    machineBusyPct: busyTotal > 0 ? Math.round((sum('machineBusy') / busyTotal) * 1000) / 10 : null,
    // The worst slice: a figure is only as clean as its noisiest part.
    foreignCpuPct: Math.max(...slices.map((s) => s.foreignPct)),
    quietWaitSec: Math.round(sum('quietWaitSec') * 10) / 10,
  };
}

function targetsOf(runs) {
  const find = (id, c) => runs.find((r) => r.scenario === id && r.connections === c);
  const targets = [];
  // A figure taken while other processes used more than QUIET_PCT % of the machine is flagged.
  const add = (id, description, value, limit, kind, unit, x, y) =>
    targets.push({
      id,
      description,
      value: value === null ? null : Math.round(value * 1000) / 1000,
      limit,
      unit,
      met: value === null ? null : kind === 'min' ? value >= limit : value <= limit,
      disturbedPct: Math.max(x?.foreignCpuPct ?? 0, y?.foreignCpuPct ?? 0) > QUIET_PCT ? Math.max(x.foreignCpuPct, y.foreignCpuPct) : null,
    });
  const ratio = (x, y) => (x && y ? x.rps / y.rps : null);
  const dp50 = (x, y, field = 'latencyMs') => (x && y ? x[field].p50 - y[field].p50 : null);
  add('c64-throughput', '(c) at 64 connections: req/s as a share of (b) bare Nest', ratio(find('c', 64), find('b', 64)), 0.5, 'min', 'ratio', find('c', 64), find('b', 64));
  add('c1-p50', '(c) at 1 connection: p50 added over (a) the upstream', dp50(find('c', 1), find('a', 1)), 1, 'max', 'ms', find('c', 1), find('a', 1));
  add('d1-p50', '(d) at 1 connection: p50 added over (a) the upstream', dp50(find('d', 1), find('a', 1)), 2, 'max', 'ms', find('d', 1), find('a', 1));
  add('e1-ttfb', '(e) at 1 connection: first byte p50 added over (a~) the upstream streaming', dp50(find('e', 1), find('a~', 1), 'ttfbMs'), 1, 'max', 'ms', find('e', 1), find('a~', 1));
  return targets;
}

/** Not a target: (c) against the bare stack using the same HTTP client as Parley's providers. */
function referenceOf(runs) {
  const find = (id, c) => runs.find((r) => r.scenario === id && r.connections === c);
  const c = find('c', 64);
  const bNode = find("b'", 64);
  return { c64OverBareNodeHttp64: c && bNode ? Math.round((c.rps / bNode.rps) * 1000) / 1000 : null };
}

function overheadsOf(runs) {
  const out = [];
  for (const run of runs) {
    const base = run.scenario === 'e' || run.scenario === 'a~' ? 'a~' : 'a';
    if (run.scenario === base) continue;
    const upstream = runs.find((r) => r.scenario === base && r.connections === run.connections);
    const bare = runs.find((r) => r.scenario === 'b' && r.connections === run.connections);
    const field = run.scenario === 'e' ? 'ttfbMs' : 'latencyMs';
    const diff = (x, y, p) => (x && y ? Math.round((x[field][p] - y[field][p]) * 1000) / 1000 : null);
    out.push({
      scenario: run.scenario,
      connections: run.connections,
      measure: field === 'ttfbMs' ? 'first byte' : 'latency',
      addedOverUpstreamMs: { p50: diff(run, upstream, 'p50'), p99: diff(run, upstream, 'p99') },
      addedOverBareNestMs: run.scenario === 'b' || field === 'ttfbMs' ? null : { p50: diff(run, bare, 'p50'), p99: diff(run, bare, 'p99') },
      throughputVsUpstream: upstream ? Math.round((run.rps / upstream.rps) * 1000) / 1000 : null,
      throughputVsBareNest: bare && run.scenario !== 'b' ? Math.round((run.rps / bare.rps) * 1000) / 1000 : null,
    });
  }
  return out;
}

/** Rows Parley wrote: every answered call must have its request log (nothing traded for speed). */
async function integrityOf(databaseUrl, answered) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const count = async (sql) => Number((await client.query(sql)).rows[0].n);
    return {
      parleyCallsAnswered200: answered,
      requestLogs: await count('SELECT count(*) AS n FROM request_logs'),
      requestLogs200: await count('SELECT count(*) AS n FROM request_logs WHERE status = 200'),
      threads: await count('SELECT count(*) AS n FROM threads'),
      threadMessages: await count('SELECT count(*) AS n FROM thread_messages'),
    };
  } finally {
    await client.end();
  }
}

async function main() {
  const started = Date.now();
  const adminKey = `ak_bench_${require('node:crypto').randomBytes(24).toString('base64url')}`;
  const secretKey = require('node:crypto').randomBytes(32).toString('base64url');

  log(`database ${dbName}`);
  const databaseUrl = createDatabase(dbName);
  dbCreated = true;
  const db = await monitor(dbName);
  const machine = machineInfo(await db.version());

  const upstream = await startNode('fake upstream', path.join(__dirname, 'lib', 'fake-upstream.js'));
  const bare = await startNode('bare Nest', path.join(__dirname, 'lib', 'bare-nest.js'), { env: { UPSTREAM_URL: upstream.url } });
  const bareNodeHttp = await startNode('bare Nest (node:http)', path.join(__dirname, 'lib', 'bare-nest.js'), { env: { UPSTREAM_URL: upstream.url, BARE_CLIENT: 'node-http' } });
  const profileDir = path.join(__dirname, 'profiles');
  if (PROFILE) fs.mkdirSync(profileDir, { recursive: true });
  const parley = await startNode('Parley', PARLEY_MAIN, {
    env: {
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'warn',
      PARLEY_ADMIN_KEY: adminKey,
      PARLEY_SECRET_KEY: secretKey,
    },
    nodeArgs: PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
    readyPattern: /listening on (http:\/\/\S+)/,
  });
  log(`upstream ${upstream.url}, bare Nest ${bare.url}, Parley ${parley.url} (pid ${parley.pid})`);

  const setup = await setUpParley(parley.url, adminKey, upstream.url);
  const key = { 'x-api-key': setup.key };
  const parleyInvoke = { variables: VARIABLES, messages: [USER_MESSAGE] };
  const scenarios = [
    { id: 'a', name: 'upstream direct', serverPid: () => upstream.pid, target: { url: `${upstream.url}/chat/completions`, body: upstreamBody(false) } },
    { id: 'a~', name: 'upstream direct, streamed', stream: true, serverPid: () => upstream.pid, target: { url: `${upstream.url}/chat/completions`, body: upstreamBody(true) } },
    { id: 'b', name: 'bare Nest pass-through', serverPid: () => bare.pid, target: { url: `${bare.url}/chat/completions`, body: upstreamBody(false) } },
    { id: "b'", name: 'bare Nest, node:http client', serverPid: () => bareNodeHttp.pid, target: { url: `${bareNodeHttp.url}/chat/completions`, body: upstreamBody(false) } },
    { id: 'c', name: 'Parley deployed prompt', usesDb: true, serverPid: () => parley.pid, target: { url: `${parley.url}${setup.promptPath}`, headers: key, body: JSON.stringify(parleyInvoke) } },
    { id: 'd', name: 'Parley assistant + thread', usesDb: true, thread: true, serverPid: () => parley.pid, target: { url: parley.url, headers: key, requests: conversation(setup.assistantPath, false) } },
    { id: 'e', name: 'Parley assistant streamed', usesDb: true, thread: true, stream: true, serverPid: () => parley.pid, target: { url: parley.url, headers: key, requests: conversation(setup.assistantPath, true) } },
  ].filter((s) => !ONLY || ONLY.includes(s.id));

  const ctx = { upstream, db, pids: [upstream.pid, bare.pid, bareNodeHttp.pid, parley.pid], quietBudget: QUIET_BUDGET };
  let parleyAnswered = 0;
  let databaseProbe = null;
  for (const scenario of scenarios) {
    await sanityCheck(scenario);
    if (scenario.usesDb) parleyAnswered++;
  }
  // Each scenario is measured in ROUNDS slices, the scenarios taking turns (in reverse order every
  // other round): on a shared machine, slow phases then weigh on every scenario alike, and the
  // figures compared with each other (c against a, c against b) are taken side by side in time.
  const slices = new Map();
  const sliceSec = DURATION / ROUNDS;
  for (const connections of CONNECTIONS) {
    for (let round = 0; round < ROUNDS; round++) {
      for (const scenario of round % 2 ? [...scenarios].reverse() : scenarios) {
        if (scenario.usesDb && !databaseProbe) {
          log('(db) PostgreSQL round trip and commit, sequential');
          databaseProbe = await probe(databaseUrl);
        }
        log(`(${scenario.id}) ${scenario.name}, ${connections} connection(s), round ${round + 1}/${ROUNDS}: ${WARMUP}s warm-up + ${sliceSec}s`);
        const key = `${scenario.id}@${connections}`;
        if (!slices.has(key)) slices.set(key, []);
        slices.get(key).push(await measureSlice(scenario, connections, sliceSec, ctx));
      }
    }
  }
  const runs = [];
  for (const scenario of scenarios) {
    for (const connections of CONNECTIONS) {
      const run = mergeSlices(scenario, connections, slices.get(`${scenario.id}@${connections}`));
      runs.push(run);
      if (run.non2xx > 0 || run.errors > 0) log(`  !! (${run.scenario}) at ${connections}: ${run.non2xx} non-2xx, ${run.errors} errors: ${JSON.stringify(run.statuses)}`);
    }
  }
  parleyAnswered += runs.filter((r) => ['c', 'd', 'e'].includes(r.scenario)).reduce((n, r) => n + r.warmupRequests + r.requests, 0);
  await stopAll(); // Parley drains and closes its pool before the counts are read
  const integrity = scenarios.some((s) => s.usesDb) ? await integrityOf(databaseUrl, parleyAnswered) : null;
  await db.close();

  const report = {
    timestamp: new Date().toISOString(),
    partial: Boolean(ONLY) || CONNECTIONS.join() !== '1,64' || Boolean(process.env.BENCH_PARLEY_MAIN),
    parleyMain: path.relative(ROOT, PARLEY_MAIN),
    machine,
    settings: { durationSec: DURATION, rounds: ROUNDS, warmupSecPerRound: WARMUP, quietBelowPct: QUIET_PCT, connections: CONNECTIONS, parley: { LOG_LEVEL: 'warn', DB_POOL_SIZE: process.env.DB_POOL_SIZE || '10 (default)' }, profile: PROFILE },
    runs,
    overhead: overheadsOf(runs),
    targets: targetsOf(runs),
    reference: referenceOf(runs),
    databaseProbe,
    integrity,
    wallClockSec: Math.round((Date.now() - started) / 100) / 10,
  };
  fs.mkdirSync(RESULTS, { recursive: true });
  const file = path.join(RESULTS, `${stamp}.json`);
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  if (!report.partial) fs.writeFileSync(path.join(RESULTS, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  printReport(report);
  console.log(`\nresults: ${path.relative(process.cwd(), file)}${report.partial ? ' (partial run: latest.json left as it was)' : ' and bench/results/latest.json'}`);
}

async function cleanUp() {
  cleaningUp ??= (async () => {
    await stopAll().catch(() => {});
    if (dbCreated) {
      try {
        dropDatabase(dbName);
        dbCreated = false;
        log(`dropped ${dbName}`);
      } catch (err) {
        log(`could not drop ${dbName}: ${err.message}`);
      }
    }
  })();
  return cleaningUp;
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    log(`${signal}: stopping`);
    cleanUp().finally(() => process.exit(130));
  });
}
process.on('exit', () => {
  killAllNow();
  if (dbCreated) {
    try {
      dropDatabase(dbName);
    } catch {
      /* reported by cleanUp already */
    }
  }
});

main()
  .then(cleanUp)
  .catch(async (err) => {
    console.error(`bench failed: ${err.stack || err.message}`);
    await cleanUp();
    process.exitCode = 1;
  });
