'use strict';
/**
 * Database reads per call, per table, for one or more builds of Parley: a count that machine load
 * does not blur (docs/performance.md uses it for the cache changes). Each build runs alone on its
 * own fresh database; scenario c (deployed prompt) or d (assistant + thread) at the given
 * connections for the given seconds (after 3 s of warm-up), then the index and sequential scans PostgreSQL counted on
 * each table (pg_stat_user_tables, after pg_stat_force_next_flush) divided by the calls answered.
 *
 *   node bench/reads.js <dist dir>[,<dist dir>…] [c|d] [connections] [seconds]
 */
const crypto = require('node:crypto');
const path = require('node:path');
const { Client } = require('pg');
const { createDatabase, runTool } = require('./lib/database');
const { runLoad } = require('./lib/load');
const { startNode, stopAll } = require('./lib/processes');
const { scenariosOf } = require('./lib/scenarios');
const { setUpParley } = require('./lib/setup');

const [dirs, scenarioId = 'c', connArg = '64', secondsArg = '10'] = process.argv.slice(2);
if (!dirs) {
  console.error('usage: node bench/reads.js <dist dir>[,<dist dir>…] [c|d] [connections] [seconds]');
  process.exit(2);
}
const created = [];

async function scans(databaseUrl) {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_stat_force_next_flush()').catch(() => {}); // PostgreSQL 15+
    await new Promise((resolve) => setTimeout(resolve, 600));
    const { rows } = await client.query('SELECT relname, coalesce(idx_scan, 0) + seq_scan AS scans FROM pg_stat_user_tables');
    return Object.fromEntries(rows.map((r) => [r.relname, Number(r.scans)]));
  } finally {
    await client.end();
  }
}

async function measure(dir) {
  const dbName = `parley_bench_reads_${Date.now()}_${process.pid}`;
  const databaseUrl = createDatabase(dbName);
  created.push(dbName);
  const adminKey = `ak_bench_${crypto.randomBytes(24).toString('base64url')}`;
  const upstream = await startNode('fake upstream', path.join(__dirname, 'lib', 'fake-upstream.js'));
  const parley = await startNode(`Parley ${dir}`, path.resolve(dir, 'main.js'), {
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
  try {
    const setup = await setUpParley(parley.url, adminKey, upstream.url);
    const scenario = scenariosOf({ upstream, parley }, setup).find((s) => s.id === scenarioId);
    await runLoad(scenario.target, { connections: Number(connArg), durationSec: 3 }); // warm-up
    const before = await scans(databaseUrl);
    const result = await runLoad(scenario.target, { connections: Number(connArg), durationSec: Number(secondsArg) });
    const after = await scans(databaseUrl);
    const calls = result.requests + result.non2xx;
    const perThousand = {};
    for (const table of Object.keys(after).sort()) {
      const delta = after[table] - (before[table] ?? 0);
      // Foreign key checks of the rows a call writes count as index scans too (projects, threads).
      if (delta > 0 && table !== 'bench_probe') perThousand[table] = Math.round((delta / calls) * 10000) / 10;
    }
    console.log(
      `${dir}: ${calls} calls (${result.non2xx} not 2xx) at ${connArg} connections, ${result.rps} req/s; table scans per 1000 calls: ${JSON.stringify(perThousand)}`,
    );
  } finally {
    await stopAll();
  }
}

async function main() {
  for (const dir of dirs.split(',')) await measure(dir);
}

runTool(main, () => created);
