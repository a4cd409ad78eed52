'use strict';
/**
 * `npm run bench`: what Parley adds to an LLM call, side by side in one run with the upstream
 * alone, the fastest honest floors and the peer a user would pick instead (issue 8,
 * docs/performance.md). Not a test: it prints a table and one met/missed line per target, writes
 * bench/results/<timestamp>.json (and latest.json), and stops everything it started (and drops
 * its fresh PostgreSQL database) even when it fails.
 *
 * Scenarios, each at 1 and 64 connections:
 *   a   the fake upstream directly (non-streamed)            a~  the same, streamed (first byte)
 *   r   raw node:http + undici Pool proxy: the physical limit of a Node proxy
 *   b   bare NestJS 11 + express calling the upstream with undici.request: the floor of our stack
 *   p   Portkey's open-source gateway (installed on demand into bench/.peers; non-streamed only)
 *   c   a deployed prompt through Parley
 *   i   (c) plus a `user`, on a prompt of the same content deployed as a 50/50 split sticky by user:
 *       every other call is served by the second arm (issue 42)
 *   j   (c) on a version with a two-target routing block, the first target healthy (issue 43)
 *   k   (c) through a second Parley on the same database with the OpenTelemetry export on (traces and
 *       metrics over OTLP/HTTP protobuf, every call sampled, to a loopback receiver: bench/lib/otlp-sink.js),
 *       compared with (c), whose Parley exports nothing (issue 45)
 *   d   an assistant through Parley, appending to threads: per connection, conversations of 10
 *       calls (the first creates the thread, the next 9 continue it)
 *   e   d streamed; its figure is the time to the first byte of the stream
 *   f   the assistant through OpenAI's /v1/responses on a /v1/conversations conversation: per
 *       connection, one request creates the conversation, then 10 responses continue it
 *   g   the deployed prompt through OpenAI's /v1/chat/completions (model "bench-prompt@production")
 *   h   the same through Anthropic's /v1/messages (the same model, max_tokens 64, the same user message)
 * then a 200-turn thread, to measure request log bytes per turn, then an experiment run of 10,000
 * items at concurrency 32 beside another project's paced calls (bench/evals.js: its wall time and
 * CPU per item, and the other project's p50 during the run against idle).
 *
 * First every scenario gets BENCH_PREWARM (10; quick: 2) s of load at each connection count. Then
 * each figure pools BENCH_ROUNDS (3) slices of BENCH_DURATION / rounds seconds (6 s in all), each
 * after BENCH_WARMUP (1) s of warm-up; the scenarios take turns slice by slice.
 *
 * Environment: BENCH_QUICK=1 (2 s per figure in 2 slices, 0.5 s warm-up: a quick look, not
 * written to latest.json), BENCH_PREWARM, BENCH_DURATION, BENCH_ROUNDS, BENCH_WARMUP, BENCH_CONNECTIONS ("1,64"),
 * BENCH_ONLY (e.g. "a,c"; "log", "evals" for those phases: a partial run, not written to latest.json), BENCH_FETCH_FLOOR=1 (also
 * b~, the bare Nest app on the global fetch), BENCH_PORTKEY=0 (skip Portkey), BENCH_PROFILE=1
 * (Parley runs with --cpu-prof; profiles in bench/profiles/), BENCH_PARLEY_MAIN (another build's
 * main.js, e.g. a baseline; not written to latest.json), BENCH_QUIET_PCT / BENCH_QUIET_MAX /
 * BENCH_QUIET_BUDGET (waiting for a quiet machine), BENCH_PGHOST/PORT/USER.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createDatabase, dropDatabase, monitor, probe } = require('./lib/database');
const { measureLogStorage } = require('./lib/log-storage');
const { runLoad } = require('./lib/load');
const { measureSlice, mergeSlices } = require('./lib/measure');
const { startPortkey } = require('./lib/portkey');
const { killAllNow, memoryMB, startNode, stopAll } = require('./lib/processes');
const { printReport } = require('./lib/report');
const { evalSettings, measureEvals, printEvals } = require('./evals');
const { scenariosOf, sanityCheck } = require('./lib/scenarios');
const { setUpParley } = require('./lib/setup');
const { overheadsOf, targetsOf } = require('./lib/targets');

const ROOT = path.resolve(__dirname, '..');
const RESULTS = path.join(__dirname, 'results');
const QUICK = process.env.BENCH_QUICK === '1';
const DURATION = Number(process.env.BENCH_DURATION || (QUICK ? 2 : 6));
const WARMUP = Number(process.env.BENCH_WARMUP || (QUICK ? 0.5 : 1));
/** Load on every server and scenario before any figure is taken: V8 keeps optimizing a large server's code for tens of seconds. */
const PREWARM = Number(process.env.BENCH_PREWARM || (QUICK ? 2 : 10));
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS || (QUICK ? 2 : 3)));
const CONNECTIONS = (process.env.BENCH_CONNECTIONS || '1,64').split(',').map(Number);
const ONLY = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',').map((s) => s.trim()) : null;
const PROFILE = process.env.BENCH_PROFILE === '1';
const QUIET_PCT = Number(process.env.BENCH_QUIET_PCT || 10);
const PARLEY_MAIN = path.resolve(process.env.BENCH_PARLEY_MAIN || path.join(ROOT, 'dist', 'main.js'));
const QUIET_MAX = Number(process.env.BENCH_QUIET_MAX || (QUICK ? 3 : 15));
const QUIET_BUDGET = Number(process.env.BENCH_QUIET_BUDGET || (QUICK ? 10 : 90));
/** Parley's environment in the bench, besides its database and keys (recorded in the report). */
const PARLEY_ENV = {
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'warn',
  // The outbound policy refuses loopback upstreams unless allowed: the fake upstream is on 127.0.0.1.
  PROVIDER_ALLOWED_HOSTS: '127.0.0.1',
};

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
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
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

async function startServers(databaseUrl, adminKey, secretKey) {
  const here = (file) => path.join(__dirname, 'lib', file);
  const upstream = await startNode('fake upstream', here('fake-upstream.js'));
  const upstreamEnv = { env: { UPSTREAM_URL: upstream.url } };
  const rawProxy = await startNode('raw undici proxy', here('raw-proxy.js'), upstreamEnv);
  const bare = await startNode('bare Nest', here('bare-nest.js'), upstreamEnv);
  const bareFetch =
    process.env.BENCH_FETCH_FLOOR === '1'
      ? await startNode('bare Nest (fetch)', here('bare-nest.js'), { env: { ...upstreamEnv.env, BARE_CLIENT: 'fetch' } })
      : null;
  const portkey = ONLY && !ONLY.includes('p') ? { skipped: 'not in BENCH_ONLY' } : await startPortkey(upstream.url, log);
  if (portkey.skipped) log(`(p) Portkey SKIPPED: ${portkey.skipped}`);
  const profileDir = path.join(__dirname, 'profiles');
  if (PROFILE) fs.mkdirSync(profileDir, { recursive: true });
  const parleyEnv = { ...PARLEY_ENV, DATABASE_URL: databaseUrl, PARLEY_ADMIN_KEY: adminKey, PARLEY_SECRET_KEY: secretKey };
  const parley = await startNode('Parley', PARLEY_MAIN, {
    env: parleyEnv,
    nodeArgs: PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
    readyPattern: /(?:listening on |Swagger UI: )(http:\/\/[^\s/]+)/,
  });
  // (k): a second instance on the same database, exporting over OTLP to a loopback receiver (started after the first, which migrated).
  const withOtel = !ONLY || ONLY.includes('k');
  const otlpSink = withOtel ? await startNode('OTLP receiver', here('otlp-sink.js')) : null;
  const parleyOtel = withOtel
    ? await startNode('Parley (OTLP export)', PARLEY_MAIN, {
        env: { ...parleyEnv, ...otelEnvOf(otlpSink.url) },
        readyPattern: /(?:listening on |Swagger UI: )(http:\/\/[^\s/]+)/,
      })
    : null;
  log(
    `upstream ${upstream.url}, raw proxy ${rawProxy.url}, bare Nest ${bare.url}${portkey.url ? `, Portkey ${portkey.url}` : ''}, Parley ${parley.url} (pid ${parley.pid})${parleyOtel ? `, Parley with OTLP export ${parleyOtel.url} (pid ${parleyOtel.pid}) to ${otlpSink.url}` : ''}`,
  );
  return { upstream, rawProxy, bare, bareFetch, portkey, parley, parleyOtel, otlpSink };
}

/**
 * Scenario (k)'s export: traces and metrics over OTLP/HTTP protobuf (the defaults), every call
 * sampled (the default parent-based sampler with no parent), the SDK's default batching (recorded in the report).
 */
function otelEnvOf(endpoint) {
  return { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_METRIC_EXPORT_INTERVAL: '10000' };
}

async function main() {
  const started = Date.now();
  const crypto = require('node:crypto');
  const adminKey = `ak_bench_${crypto.randomBytes(24).toString('base64url')}`;
  const secretKey = crypto.randomBytes(32).toString('base64url');

  log(`database ${dbName}`);
  const databaseUrl = createDatabase(dbName);
  dbCreated = true;
  const db = await monitor(dbName);
  const machine = machineInfo(await db.version());

  const servers = await startServers(databaseUrl, adminKey, secretKey);
  const setup = await setUpParley(servers.parley.url, adminKey, servers.upstream.url);
  if (setup.split.skipped) log(`(i) split SKIPPED: ${setup.split.skipped}`);
  if (setup.routed.skipped) log(`(j) routing SKIPPED: ${setup.routed.skipped}`);
  const scenarios = scenariosOf(servers, setup).filter((s) => !ONLY || ONLY.includes(s.id));

  const ctx = {
    upstream: servers.upstream,
    db,
    pids: () =>
      [
        servers.upstream,
        servers.rawProxy,
        servers.bare,
        servers.bareFetch,
        servers.portkey.proc,
        servers.parley,
        servers.parleyOtel,
        servers.otlpSink,
      ]
        .filter(Boolean)
        .map((p) => p.pid),
    quietBudget: QUIET_BUDGET,
    warmupSec: WARMUP,
    quietPct: QUIET_PCT,
    quietMaxSec: QUIET_MAX,
    log,
  };
  let parleyAnswered = 0;
  let databaseProbe = null;
  for (const scenario of scenarios) {
    const calls = await sanityCheck(scenario);
    if (scenario.usesDb) parleyAnswered += calls;
  }
  // Each scenario is measured in ROUNDS slices, the scenarios taking turns (in reverse order every
  // other round): on a shared machine, slow phases then weigh on every scenario alike, and the
  // figures compared with each other (c against a, b and p) are taken side by side in time.
  // A gateway runs warm: before the first slice every scenario gets PREWARM seconds of load at each
  // connection count, so JIT compilation does not weigh on the first figures (bigger code bases
  // warm longer: Parley's invoke path was still being optimized after 30 s at one connection).
  if (PREWARM > 0) {
    for (const connections of [...CONNECTIONS].sort((x, y) => y - x)) {
      for (const scenario of scenarios) {
        log(`(${scenario.id}) warming up, ${connections} connection(s): ${PREWARM}s`);
        const warm = await runLoad(scenario.target, { connections, ttfb: Boolean(scenario.stream), durationSec: PREWARM });
        if (scenario.usesDb) parleyAnswered += warm.requests;
      }
    }
  }
  const slices = new Map();
  const sliceSec = DURATION / ROUNDS;
  for (const connections of CONNECTIONS) {
    for (let round = 0; round < ROUNDS; round++) {
      for (const scenario of round % 2 ? [...scenarios].reverse() : scenarios) {
        if (scenario.usesDb && !databaseProbe) {
          log('(db) PostgreSQL round trip and commit, sequential');
          databaseProbe = await probe(databaseUrl);
        }
        log(
          `(${scenario.id}) ${scenario.name}, ${connections} connection(s), round ${round + 1}/${ROUNDS}: ${WARMUP}s warm-up + ${sliceSec}s`,
        );
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
      if (run.non2xx > 0 || run.errors > 0)
        log(`  !! (${run.scenario}) at ${connections}: ${run.non2xx} non-2xx, ${run.errors} errors: ${JSON.stringify(run.statuses)}`);
    }
  }
  // Every call of these makes one request log (f's conversation creates make none).
  parleyAnswered += runs
    .filter((r) => ['c', 'i', 'j', 'k', 'd', 'e', 'g', 'h'].includes(r.scenario))
    .reduce((n, r) => n + r.warmupRequests + r.requests, 0);

  let logStorage = null;
  if (!ONLY || ONLY.includes('log')) {
    log('(log) one 200-turn assistant thread, then request log bytes per turn');
    try {
      logStorage = await measureLogStorage({
        parleyUrl: servers.parley.url,
        assistantPath: setup.assistantPath,
        key: setup.key,
        databaseUrl,
      });
      parleyAnswered += logStorage.turns;
    } catch (err) {
      log(`  !! log storage: ${err.message}`);
      logStorage = { error: err.message.split('\n')[0] };
    }
  }
  const parleyMemory = memoryMB(servers.parley.pid);
  let evals = null;
  if (!ONLY || ONLY.includes('evals')) {
    log("(evals) an experiment run beside another project's paced calls (bench/evals.js)");
    try {
      evals = await measureEvals(
        {
          parleyUrl: servers.parley.url,
          parleyPid: servers.parley.pid,
          upstreamUrl: servers.upstream.url,
          upstreamPid: servers.upstream.pid,
          adminKey,
          key: setup.key,
          promptPath: setup.promptPath,
          databaseUrl,
          db,
          log,
          warm: false,
        },
        evalSettings(QUICK),
      );
      const { idleBefore, duringRun, idleAfter } = evals.otherProject;
      parleyAnswered += idleBefore.answered200 + duringRun.answered200 + idleAfter.answered200;
    } catch (err) {
      log(`  !! experiment run: ${err.message}`);
      evals = { error: err.message.split('\n')[0] };
    }
  }
  await stopAll(); // Parley drains and closes its pool before the counts are read
  const integrity = scenarios.some((s) => s.usesDb) ? await integrityOf(databaseUrl, parleyAnswered) : null;
  await db.close();

  const portkeySkipped = servers.portkey.skipped ?? null;
  const report = {
    timestamp: new Date().toISOString(),
    partial: Boolean(ONLY) || QUICK || CONNECTIONS.join() !== '1,64' || Boolean(process.env.BENCH_PARLEY_MAIN),
    command: `${Object.entries(process.env)
      .filter(([k]) => k.startsWith('BENCH_'))
      .map(([k, v]) => `${k}=${v} `)
      .join('')}npm run bench`,
    parleyMain: path.relative(ROOT, PARLEY_MAIN),
    machine: { ...machine, loadAverageAtEnd: os.loadavg().map((l) => Math.round(l * 100) / 100) },
    settings: {
      durationSec: DURATION,
      rounds: ROUNDS,
      warmupSecPerRound: WARMUP,
      quietBelowPct: QUIET_PCT,
      connections: CONNECTIONS,
      quick: QUICK,
      parley: { ...PARLEY_ENV, DB_POOL_SIZE: process.env.DB_POOL_SIZE || '10 (default)' },
      parleyOtlpExport: servers.parleyOtel ? otelEnvOf('<loopback receiver>') : null,
      profile: PROFILE,
    },
    peers: {
      portkey: portkeySkipped
        ? { skipped: portkeySkipped }
        : { version: servers.portkey.version, headers: Object.keys(servers.portkey.headers) },
    },
    runs,
    overhead: overheadsOf(runs),
    targets: targetsOf(runs, { quietPct: QUIET_PCT, logStorage, portkeySkipped }),
    logStorage,
    evals,
    parleyMemoryMB: parleyMemory && { rssAtEnd: Math.round(parleyMemory.rss), peak: Math.round(parleyMemory.hwm) },
    databaseProbe,
    integrity,
    wallClockSec: Math.round((Date.now() - started) / 100) / 10,
  };
  fs.mkdirSync(RESULTS, { recursive: true });
  const file = path.join(RESULTS, `${stamp}.json`);
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  if (!report.partial) fs.writeFileSync(path.join(RESULTS, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  printReport(report);
  if (evals) printEvals(evals);
  console.log(
    `\nresults: ${path.relative(process.cwd(), file)}${report.partial ? ' (partial or quick run: latest.json left as it was)' : ' and bench/results/latest.json'}`,
  );
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
    // The database monitor's connection may still be open: exit rather than wait on it.
    process.exit(1);
  });
