'use strict';
/**
 * Full-text search over request logs at size (docs/performance.md, "Full-text search over request
 * logs"): `GET /v2/logs?q=` over HTTP on loopback, one request at a time, against 1,000,000 logs.
 *
 *   npm run bench:search     nest build, then node bench/log-search.js (about 10 minutes on 2 cores)
 *
 * 1. A fresh PostgreSQL database (createdb) and Parley on it (dist/main.js), four projects made
 *    through the admin API, each with its own key.
 * 2. BENCH_SEARCH_LOGS (1,000,000) logs inserted straight into request_logs by INSERT ... SELECT in
 *    batches of 100,000 (bench/lib/search-corpus.js: the text, its projects and word frequencies),
 *    with request_logs' secondary indexes dropped first and made again after (as a bulk load does;
 *    the same definitions), then VACUUM ANALYZE, as autovacuum would have done on a live table.
 * 3. 20 warm-up searches, then BENCH_SEARCH_QUERIES (200) measured ones, limit BENCH_SEARCH_LIMIT
 *    (50, the console's page): the categories below in turn, each in a project drawn by its share
 *    of the logs. Each figure is one request's wall time, sent to the body read.
 * Prints p50/p95/p99 overall and per category, writes bench/results/log-search-<timestamp>.json and
 * (a full run) log-search-latest.json, then stops Parley and drops the database (BENCH_SEARCH_KEEP=1
 * keeps it and prints its URL; BENCH_SEARCH_DB=<name> measures such a kept database again, no seeding).
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('pg');
const { createDatabase, dropDatabase } = require('./lib/database');
const { killAllNow, startNode, stopAll } = require('./lib/processes');
const { COMMON, PROJECTS, SHARES, TOPICS, TAIL_SIZE, createCorpus, insertLogs, tailWords } = require('./lib/search-corpus');
const { percentile } = require('./lib/stats');

const ROOT = path.resolve(__dirname, '..');
const RESULTS = path.join(__dirname, 'results');
const LOGS = Number(process.env.BENCH_SEARCH_LOGS || 1_000_000);
const QUERIES = Number(process.env.BENCH_SEARCH_QUERIES || 200);
const LIMIT = Number(process.env.BENCH_SEARCH_LIMIT || 50);
const KEEP = process.env.BENCH_SEARCH_KEEP === '1';
const REUSE = process.env.BENCH_SEARCH_DB;
const BATCH = 100_000;
const DAYS = 30;
const WARM_UP = 20;
const log = (line) => process.stderr.write(`${line}\n`);

/** The searches, in turn: [name, (ctx) => {q, query?, after?}]. ctx: project p (0-based), its words, a PRNG. */
const CATEGORIES = [
  ['common word', (c) => ({ q: c.pick(COMMON.slice(0, 10)) })],
  ['frequent topic word', (c) => ({ q: c.topic(1, 4) })],
  ['mid topic word', (c) => ({ q: c.topic(20, 40) })],
  ['frequent tail word', (c) => ({ q: c.tail(1, 20) })],
  ['rare tail word', (c) => ({ q: c.tail(3000, TAIL_SIZE) })],
  ['order number (a few logs)', (c) => ({ q: c.orderNumber() })],
  ['absent word', (c) => ({ q: `zzq${c.int(1e6)}` })],
  ["another project's topic word (none here)", (c) => ({ q: c.foreignTopic() })],
  ['two words', (c) => ({ q: `${c.topic(1, 10)} ${c.tail(1, 50)}` })],
  ['phrase', (c) => ({ q: c.phrase() })],
  ['or', (c) => ({ q: `${c.topic(5, 15)} or ${c.topic(30, 50)}` })],
  ['exclusion', (c) => ({ q: `${c.topic(1, 5)} -${c.topic(6, 12)}` })],
  ['word + status=error', (c) => ({ q: c.topic(1, 10), query: 'status=error' })],
  ['mid word + slug', (c) => ({ q: c.topic(10, 30), query: `slug=prompt-${c.int(6)}` })],
  ['next page', (c) => ({ q: c.topic(1, 10), after: 'next' })],
  ['mid word, 15 days back', (c) => ({ q: c.topic(20, 40), after: 'deep' })],
];

async function adminCall(baseUrl, key, method, pathname, body) {
  const res = await fetch(`${baseUrl}${pathname}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${pathname} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

async function seed(databaseUrl, projectIds) {
  const client = new Client({ connectionString: databaseUrl, application_name: 'parley-bench-seed' });
  await client.connect();
  try {
    await client.query("SET maintenance_work_mem = '1GB'");
    await client.query('SET synchronous_commit = off');
    const started = Date.now();
    const { rows: indexes } = await client.query(
      "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'request_logs' AND indexname <> 'request_logs_pkey' ORDER BY indexname",
    );
    for (const index of indexes) await client.query(`DROP INDEX "${index.indexname}"`);
    await createCorpus(client);
    const endMs = Date.now() - 60_000;
    for (let from = 1; from <= LOGS; from += BATCH) {
      await insertLogs(client, projectIds, from, Math.min(LOGS, from + BATCH - 1), endMs, LOGS, DAYS);
      log(`  ${Math.min(LOGS, from + BATCH - 1)} / ${LOGS} logs (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    }
    const inserted = Date.now();
    // A partitioned table's index reads `ON ONLY` (this table alone); made again on the whole tree.
    for (const index of indexes) await client.query(index.indexdef.replace(' ON ONLY ', ' ON '));
    const indexed = Date.now();
    await client.query('DROP TABLE bench_words, bench_sentences');
    await client.query('VACUUM ANALYZE request_logs');
    return { insertSec: (inserted - started) / 1000, indexSec: (indexed - inserted) / 1000, totalSec: (Date.now() - started) / 1000 };
  } finally {
    await client.end();
  }
}

async function sizes(databaseUrl) {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const mb = async (sql) => Math.round(Number((await client.query(sql)).rows[0].bytes) / 1048576);
    const tree = (kind) =>
      `SELECT sum(pg_${kind}(c.oid)) AS bytes FROM pg_partition_tree('request_logs') t JOIN pg_class c ON c.oid = t.relid`;
    return {
      logs: Number((await client.query('SELECT count(*) AS n FROM request_logs')).rows[0].n),
      tableMB: await mb(tree('table_size')),
      indexesMB: await mb(tree('indexes_size')),
      searchIndexMB: await mb(
        "SELECT sum(pg_relation_size(t.relid)) AS bytes FROM pg_partition_tree('request_logs_search_idx') t WHERE t.isleaf",
      ),
      searchColumnAvgBytes: Math.round(
        Number((await client.query('SELECT avg(pg_column_size(search)) AS bytes FROM request_logs')).rows[0].bytes),
      ),
      postgres: (await client.query('SHOW server_version')).rows[0].server_version,
    };
  } finally {
    await client.end();
  }
}

/** What the searches draw from: per project its topic words in rank order, its tail ranking, sample order numbers and phrases. */
async function contextsOf(databaseUrl, projectIds) {
  const tail = tailWords();
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const samples = [];
    for (const id of projectIds) {
      const { rows } = await client.query(
        `SELECT request_data->'messages'->0->>'content' AS input FROM request_logs TABLESAMPLE SYSTEM (1) WHERE project_id = $1 LIMIT 200`,
        [id],
      );
      samples.push(rows.map((r) => r.input));
    }
    const deep = (await client.query(`SELECT id FROM request_logs WHERE started_at < now() - interval '15 days' ORDER BY id DESC LIMIT 1`))
      .rows[0].id;
    return { tail, samples, deep };
  } finally {
    await client.end();
  }
}

function contextFor(shared, p, random) {
  const int = (n) => Math.floor(random() * n);
  const between = (lo, hi) => lo + int(hi - lo + 1);
  const topics = TOPICS[PROJECTS[p]];
  const inputs = shared.samples[p];
  return {
    int,
    pick: (list) => list[int(list.length)],
    topic: (lo, hi) => topics[Math.min(topics.length, between(lo, hi)) - 1],
    // The project's tail rank r is word ((r - 1) * 7919 + p * 1009) % TAIL_SIZE (search-corpus.js, 1-based projects).
    tail: (lo, hi) => shared.tail[((between(lo, hi) - 1) * 7919 + (p + 1) * 1009) % TAIL_SIZE],
    foreignTopic: () => TOPICS[PROJECTS[(p + 1 + int(PROJECTS.length - 1)) % PROJECTS.length]][int(3)],
    orderNumber: () => /Order #(\d+)/.exec(inputs[int(inputs.length)])[1],
    phrase: () => {
      const words = inputs[int(inputs.length)].split(/[^a-z]+/).filter(Boolean);
      const at = int(words.length - 1);
      return `"${words[at]} ${words[at + 1]}"`;
    },
  };
}

async function search(baseUrl, key, params) {
  const started = process.hrtime.bigint();
  const res = await fetch(`${baseUrl}/v2/logs?${params}`, { headers: { 'x-api-key': key } });
  const body = await res.json();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (!res.ok) throw new Error(`GET /v2/logs?${params} answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return { ms, rows: body.data.length, lastId: body.last_id };
}

async function measure(baseUrl, keys, shared) {
  let seed = 7;
  const random = () => {
    seed = (seed * 48271) % 2147483647;
    return seed / 2147483647;
  };
  const shares = SHARES.flatMap((share, p) => Array(share).fill(p));
  const results = [];
  for (let i = 0; i < WARM_UP + QUERIES; i++) {
    const [name, make] = CATEGORIES[i % CATEGORIES.length];
    const p = shares[Math.floor(random() * shares.length)];
    const { q, query, after } = make(contextFor(shared, p, random));
    const params = new URLSearchParams(`limit=${LIMIT}${query ? `&${query}` : ''}`);
    params.set('q', q);
    if (after === 'deep') params.set('after', shared.deep);
    if (after === 'next') {
      const first = await search(baseUrl, keys[p], params.toString());
      if (!first.lastId) throw new Error(`no first page for ${params}`);
      params.set('after', first.lastId);
    }
    const result = await search(baseUrl, keys[p], params.toString());
    if (i >= WARM_UP) results.push({ category: name, project: PROJECTS[p], params: params.toString(), ...result });
  }
  return results;
}

async function main() {
  const started = Date.now();
  const dbName = REUSE || `parley_bench_search_${Date.now()}_${process.pid}`;
  const databaseUrl = REUSE ? `postgres://postgres@127.0.0.1:5432/${REUSE}` : createDatabase(dbName);
  const cleanup = () => {
    killAllNow();
    if (!KEEP && !REUSE) dropDatabase(dbName);
  };
  process.on('exit', cleanup);
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));
  const adminKey = REUSE ? process.env.BENCH_SEARCH_ADMIN_KEY : `ak_bench_${crypto.randomBytes(24).toString('base64url')}`;
  if (!adminKey) throw new Error('BENCH_SEARCH_DB needs BENCH_SEARCH_ADMIN_KEY, printed by the run that kept it');
  const parley = await startNode('Parley', path.join(ROOT, 'dist', 'main.js'), {
    env: { DATABASE_URL: databaseUrl, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', PARLEY_ADMIN_KEY: adminKey },
    readyPattern: /(?:listening on |Swagger UI: )(http:\/\/[^\s/]+)/,
  });
  if (!REUSE) {
    await adminCall(parley.url, adminKey, 'POST', '/v2/workspaces', { slug: 'bench', name: 'Search bench' });
    for (const name of PROJECTS) await adminCall(parley.url, adminKey, 'POST', '/v2/workspaces/bench/projects', { slug: name, name });
  }
  const listed = (await adminCall(parley.url, adminKey, 'GET', '/v2/workspaces/bench/projects')).data;
  const projectIds = PROJECTS.map((name) => listed.find((project) => project.slug === name).id);
  const keys = [];
  for (const name of PROJECTS)
    keys.push((await adminCall(parley.url, adminKey, 'POST', `/v2/workspaces/bench/projects/${name}/api-keys`, { name: 'search' })).key);
  let seeding = null;
  if (!REUSE) {
    log(`seeding ${LOGS} logs into ${dbName}`);
    seeding = await seed(databaseUrl, projectIds);
  }
  const table = await sizes(databaseUrl);
  log(`measuring ${QUERIES} searches (${JSON.stringify(table)})`);
  const results = await measure(parley.url, keys, await contextsOf(databaseUrl, projectIds));
  const byCategory = Object.fromEntries(
    CATEGORIES.map(([name]) => {
      const mine = results.filter((r) => r.category === name);
      return [name, { ...figures(mine.map((r) => r.ms)), meanRows: Math.round(mine.reduce((s, r) => s + r.rows, 0) / mine.length) }];
    }),
  );
  const report = {
    timestamp: new Date().toISOString(),
    partial: Boolean(REUSE) || LOGS !== 1_000_000 || QUERIES !== 200 || LIMIT !== 50,
    command: 'npm run bench:search',
    settings: { logs: LOGS, queries: QUERIES, limit: LIMIT, warmUp: WARM_UP, days: DAYS },
    machine: {
      nproc: os.availableParallelism(),
      cpuModel: /^model name\s*:\s*(.*)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim(),
      node: process.version,
      loadAverage: os.loadavg().map((v) => Math.round(v * 10) / 10),
    },
    table,
    seeding,
    overall: figures(results.map((r) => r.ms)),
    byCategory,
    slowest: [...results].sort((a, b) => b.ms - a.ms).slice(0, 10),
    searches: results.map((r) => ({
      category: r.category,
      project: r.project,
      params: r.params,
      ms: Math.round(r.ms * 10) / 10,
      rows: r.rows,
    })),
    wallClockSec: Math.round((Date.now() - started) / 1000),
  };
  const stamp = report.timestamp.replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '-');
  const json = `${JSON.stringify(report, null, 2)}\n`;
  fs.mkdirSync(RESULTS, { recursive: true });
  fs.writeFileSync(path.join(RESULTS, `log-search-${stamp}.json`), json);
  if (!report.partial) fs.writeFileSync(path.join(RESULTS, 'log-search-latest.json'), json);
  console.log(JSON.stringify({ ...report, searches: `${results.length} searches: see the file` }, null, 2));
  console.log('| searches | count | p50 ms | p95 ms | p99 ms | max ms | rows (mean) |\n|---|---|---|---|---|---|---|');
  for (const [name, f] of [['all', report.overall], ...Object.entries(byCategory)])
    console.log(`| ${name} | ${f.count} | ${f.p50} | ${f.p95} | ${f.p99} | ${f.max} | ${f.meanRows ?? ''} |`);
  const met = report.overall.p95 < 150;
  console.log(
    `\n${met ? 'MET' : 'MISSED'}: p95 of ${QUERIES} searches over ${table.logs} logs is ${report.overall.p95} ms (target < 150 ms)`,
  );
  if (KEEP) console.log(`kept: BENCH_SEARCH_DB=${dbName} BENCH_SEARCH_ADMIN_KEY=${adminKey}`);
  await stopAll();
}

/** p50/p95/p99 and the largest of a list of milliseconds (nearest rank), rounded to 0.1 ms. */
function figures(values) {
  const sorted = Float64Array.from(values).sort();
  const at = (p) => Math.round(percentile(sorted, p) * 10) / 10;
  return { count: sorted.length, p50: at(50), p95: at(95), p99: at(99), max: at(100) };
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
  stopAll().then(() => process.exit());
});
