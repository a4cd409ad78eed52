'use strict';
/**
 * A/B comparison of two builds of Parley on a noisy machine: both servers run side by side on one
 * fresh database, and short load bursts alternate between them (A, B, A, B, …), so whatever else
 * the machine is doing weighs on both alike. Prints server CPU per request (and PostgreSQL's: its
 * backends' CPU during that server's bursts) and latency of each.
 * A tool for profiling work, not part of `npm run bench`.
 *
 *   node bench/ab.js <dist dir A> <dist dir B> [scenario c|d|e|f|g|h|i] [connections] [rounds] [burst s]
 *   e.g. cp -r dist /tmp/dist-before; (change, nest build); node bench/ab.js /tmp/dist-before dist c 16
 *   AB_NODE_OPTIONS_A / AB_NODE_OPTIONS_B: NODE_OPTIONS for one server only (V8 flags: same build, two settings)
 *   AB_ENV_A / AB_ENV_B: more environment for one server only, as JSON (e.g. '{"DB_POOL_SIZE":"16"}')
 */
const crypto = require('node:crypto');
const path = require('node:path');
const { createDatabase, monitor, runTool } = require('./lib/database');
const { runLoad } = require('./lib/load');
const { cpuMicros, startNode } = require('./lib/processes');
const { setUpParley } = require('./lib/setup');
const { scenariosOf } = require('./lib/scenarios');

const [distA, distB, scenario = 'c', connArg = '16', roundsArg = '6', burstArg = '2'] = process.argv.slice(2);
if (!distA || !distB) {
  console.error('usage: node bench/ab.js <dist dir A> <dist dir B> [c|d|e|f|g|h|i] [connections] [rounds] [burst seconds]');
  process.exit(2);
}
const dbName = `parley_bench_ab_${Date.now()}_${process.pid}`;

/** The bench's own definition of the scenario (bench/lib/scenarios.js), aimed at one server. */
function target(server, setup) {
  const found = scenariosOf({ upstream: { url: 'http://unused' }, parley: { url: server.url } }, setup).find((s) => s.id === scenario);
  if (!found || !found.usesDb) throw new Error(`scenario ${scenario}: not a Parley scenario (c, d, e, f, g or h)`);
  return found.target;
}

async function main() {
  const adminKey = `ak_bench_${crypto.randomBytes(24).toString('base64url')}`;
  const env = (url) => ({
    DATABASE_URL: url,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'warn',
    PROVIDER_ALLOWED_HOSTS: '127.0.0.1',
    PARLEY_ADMIN_KEY: adminKey,
    PARLEY_SECRET_KEY: crypto.randomBytes(32).toString('base64url'),
  });
  const databaseUrl = createDatabase(dbName);
  const common = env(databaseUrl);
  const upstream = await startNode('fake upstream', path.join(__dirname, 'lib', 'fake-upstream.js'));
  const servers = {};
  for (const [name, dir] of [
    ['A', distA],
    ['B', distB],
  ]) {
    const nodeOptions = process.env[`AB_NODE_OPTIONS_${name}`];
    const env = { ...common, ...JSON.parse(process.env[`AB_ENV_${name}`] ?? '{}'), ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}) };
    servers[name] = await startNode(`Parley ${name}`, path.resolve(dir, 'main.js'), {
      env,
      readyPattern: /(?:listening on |Swagger UI: )(http:\/\/[^\s/]+)/,
    });
  }
  const setup = await setUpParley(servers.A.url, adminKey, upstream.url);
  const totals = { A: { cpu: 0, db: 0, req: 0, p50: [], rps: [] }, B: { cpu: 0, db: 0, req: 0, p50: [], rps: [] } };
  // The two servers share the database, but their bursts alternate: the backends' CPU during a burst is that server's.
  const database = await monitor(dbName);
  const connections = Number(connArg);
  for (const name of ['A', 'B']) await runLoad(target(servers[name], setup), { connections, durationSec: 2, ttfb: scenario === 'e' });
  for (let round = 0; round < Number(roundsArg); round++) {
    for (const name of round % 2 ? ['B', 'A'] : ['A', 'B']) {
      const before = cpuMicros(servers[name].pid);
      const dbBefore = await database.snapshot();
      const result = await runLoad(target(servers[name], setup), { connections, durationSec: Number(burstArg), ttfb: scenario === 'e' });
      totals[name].cpu += cpuMicros(servers[name].pid) - before;
      totals[name].db += database.cpuBetween(dbBefore, await database.snapshot());
      totals[name].req += result.requests;
      totals[name].p50.push(scenario === 'e' ? result.ttfbMs.p50 : result.latencyMs.p50);
      totals[name].rps.push(result.rps);
      if (result.non2xx || result.errors) console.log(`  ${name}: ${result.non2xx} non-2xx ${JSON.stringify(result.statuses)}`);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const name of ['A', 'B']) {
    const t = totals[name];
    console.log(
      `${name} ${name === 'A' ? distA : distB}: ${Math.round(t.cpu / t.req)} µs CPU/request (PostgreSQL ${Math.round(t.db / t.req)}) over ${t.req} requests, median ${scenario === 'e' ? 'TTFB' : 'p50'} ${median(t.p50).toFixed(3)} ms, median ${median(t.rps)} req/s`,
    );
  }
  console.log(
    `B/A CPU per request: ${(totals.B.cpu / totals.B.req / (totals.A.cpu / totals.A.req)).toFixed(3)}; with PostgreSQL's: ${((totals.B.cpu + totals.B.db) / totals.B.req / ((totals.A.cpu + totals.A.db) / totals.A.req)).toFixed(3)}`,
  );
  await database.close();
}

runTool(main, () => [dbName]);
