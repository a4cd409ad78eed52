#!/usr/bin/env node
/**
 * Listing at scale (docs/scaling.md, "Listing at scale"): GET /v2/logs (first page, deep page,
 * filters), GET /v2/threads and a thread's messages, timed against the built server at a small
 * size, then again after the same project has grown to the large size. Not run by CI.
 *
 *   npm run build && node scripts/measure-listing.js
 *   LISTING_LOGS=10000000 LISTING_THREADS=1000000 LISTING_MESSAGES=100000 (defaults)
 *   PGURL=postgres://postgres@127.0.0.1:5432/postgres (the server where a fresh database is created)
 *   LISTING_KEEP=1 keeps the database afterwards (dropped by default).
 */
const { spawn } = require('node:child_process');
const path = require('node:path');
const { Client } = require('pg');

const PGURL = process.env.PGURL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const BIG = {
  logs: Number(process.env.LISTING_LOGS ?? 10_000_000),
  threads: Number(process.env.LISTING_THREADS ?? 1_000_000),
  messages: Number(process.env.LISTING_MESSAGES ?? 100_000),
};
const SMALL = { logs: 10_000, threads: 10_000, messages: 10_000 };
const OTHER_PROJECTS = 99;
const OTHER_LOGS = Number(process.env.LISTING_OTHER_LOGS ?? 10_000);
const PORT = Number(process.env.LISTING_PORT ?? 4400);
const ADMIN = 'listing-admin-key-0123456789abcdef';
const RUNS = 40;

const dbName = `parley_listing_${Date.now()}`;
const dbUrl = (() => {
  const u = new URL(PGURL);
  u.pathname = `/${dbName}`;
  return u.toString();
})();
const log = (...a) => console.error(new Date().toISOString().slice(11, 19), ...a);

/** A UUIDv7-shaped id made in SQL from a millisecond time and a row number. */
const idSql = (ms, n) =>
  `uuid_in((lpad(to_hex(${ms}), 12, '0') || '7' || substr(md5(${n}::text || 'x'), 1, 3) || '8' || substr(md5(${n}::text || 'y'), 1, 15))::cstring)`;

async function main() {
  const admin = new Client({ connectionString: PGURL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const server = spawn(process.execPath, [path.join(__dirname, '..', 'dist', 'main.js')], {
    env: { PATH: process.env.PATH, DATABASE_URL: dbUrl, PORT: String(PORT), HOST: '127.0.0.1', PARLEY_ADMIN_KEY: ADMIN, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const db = new Client({ connectionString: dbUrl });
  try {
    await waitFor(`http://127.0.0.1:${PORT}/health`);
    await db.connect();
    const base = `http://127.0.0.1:${PORT}`;
    const call = async (method, url, body, key = ADMIN) => {
      const res = await fetch(base + url, {
        method,
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: body && JSON.stringify(body),
      });
      if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
      return res.json();
    };
    await call('POST', '/v2/workspaces', { slug: 'scale' });
    const project = await call('POST', '/v2/workspaces/scale/projects', { slug: 'big' });
    const key = (await call('POST', '/v2/workspaces/scale/projects/big/api-keys', { name: 'k' })).key;
    const others = [];
    for (let i = 0; i < OTHER_PROJECTS; i++) others.push((await call('POST', '/v2/workspaces/scale/projects', { slug: `other-${i}` })).id);
    const thread = await call('POST', '/v2/threads', {}, key);
    // A project that stays at the small size: measured interleaved with "big", so load on the machine hits both alike.
    const smallProject = await call('POST', '/v2/workspaces/scale/projects', { slug: 'small' });
    const smallKey = (await call('POST', '/v2/workspaces/scale/projects/small/api-keys', { name: 'k' })).key;
    const smallThread = await call('POST', '/v2/threads', {}, smallKey);

    // Ids span from 20 days ago to the end of the partitions the server created ahead: several partitions.
    const now = Date.now();
    const end = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth() + 3, 1) - 86_400_000;
    const start = now - 20 * 86_400_000;
    const big = { id: project.id, key, thread: thread.id, logs: 0, threads: 0, messages: 0 };
    const small = { id: smallProject.id, key: smallKey, thread: smallThread.id, logs: 0, threads: 0, messages: 0 };
    const grow = async (p, size) => {
      log(`generating logs up to ${size.logs}, threads up to ${size.threads}, messages up to ${size.messages}`);
      for (let from = p.logs; from < size.logs; from += 1_000_000) {
        const to = Math.min(size.logs, from + 1_000_000);
        await insertLogs(db, p.id, from, to, size.logs, start, end);
        log(`  logs ${to}`);
      }
      p.logs = size.logs;
      for (let from = p.threads; from < size.threads; from += 500_000) {
        const to = Math.min(size.threads, from + 500_000);
        await db.query(
          `INSERT INTO threads (project_id, id, metadata, create_log, last_seq, created_at)
          SELECT $1, ${idSql(`(${start}::bigint + g::bigint * ${Math.floor((now - start) / BIG.threads)})`, 'g || $1::uuid::text')}, jsonb_build_object('n', g), '{}', 0, now()
            FROM generate_series($2::int, $3::int - 1) g`,
          [p.id, from, to],
        );
      }
      p.threads = size.threads;
      if (size.messages > p.messages) {
        await db.query(
          `INSERT INTO thread_messages (project_id, id, thread_id, seq, content, metadata, request_log_id, created_at)
          SELECT $1, ${idSql(`(${start}::bigint + g::bigint * 1000)`, 'g || $2::uuid::text')}, $2, g,
                 jsonb_build_array(jsonb_build_object('role', 'user', 'content', 'message ' || g)), '{}', NULL, now()
            FROM generate_series($3::int + 1, $4::int) g`,
          [p.id, p.thread, p.messages, size.messages],
        );
        await db.query('UPDATE threads SET last_seq = $3 WHERE project_id = $1 AND id = $2', [p.id, p.thread, size.messages]);
        p.messages = size.messages;
      }
      await db.query('ANALYZE');
    };

    /** The listing URLs of a project at its current size (deep pages start after its middle row). */
    const urlsOf = async (p) => {
      const nth = async (sql, n) => (await db.query(sql + ' OFFSET $2 LIMIT 1', [p.id, n])).rows[0].id;
      const deepLog = await nth('SELECT id FROM request_logs WHERE project_id = $1 ORDER BY id DESC', Math.floor(p.logs / 2));
      const deepThread = await nth(
        'SELECT id FROM threads WHERE project_id = $1 AND deleted_at IS NULL ORDER BY id DESC',
        Math.floor(p.threads / 2),
      );
      const deepMessage = (
        await db.query('SELECT id FROM thread_messages WHERE project_id = $1 AND thread_id = $2 AND seq = $3', [
          p.id,
          p.thread,
          Math.floor(p.messages / 2),
        ])
      ).rows[0].id;
      return {
        'logs, first page': '/v2/logs',
        'logs, deep page (after the middle)': `/v2/logs?after=${deepLog}`,
        'logs, slug filter (5 %)': '/v2/logs?slug=slug-7',
        'logs, status=error (2 %)': '/v2/logs?status=error',
        'logs, metadata filter (0.1 %)': '/v2/logs?metadata=customer:c42',
        'logs, slug filter, deep page': `/v2/logs?slug=slug-7&after=${deepLog}`,
        'threads, first page': '/v2/threads',
        'threads, deep page': `/v2/threads?after=${deepThread}`,
        'messages, first page': `/v2/threads/${p.thread}/messages`,
        'messages, deep page': `/v2/threads/${p.thread}/messages?after=${deepMessage}`,
      };
    };
    const time = async (p, url) => {
      const t0 = process.hrtime.bigint();
      const res = await fetch(base + url, { headers: { 'X-API-Key': p.key } });
      const body = await res.json();
      if (res.status !== 200 || !Array.isArray(body.data) || body.data.length === 0)
        throw new Error(`${url}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
      return Number(process.hrtime.bigint() - t0) / 1e6;
    };
    const stats = (times) => {
      times.sort((a, b) => a - b);
      return { p50: times[Math.floor(times.length / 2)], p95: times[Math.floor(times.length * 0.95)] };
    };
    /** Each listing of each project, the projects taking turns request by request. */
    const measure = async (label, projects) => {
      const urls = await Promise.all(projects.map(urlsOf));
      const out = projects.map(() => ({}));
      for (const name of Object.keys(urls[0])) {
        const times = projects.map(() => []);
        for (let i = 0; i < RUNS + 5; i++) {
          for (const [j, p] of projects.entries()) {
            const ms = await time(p, urls[j][name]);
            if (i >= 5) times[j].push(ms);
          }
        }
        times.forEach((t, j) => (out[j][name] = stats(t)));
      }
      log(`${label} measured`);
      return out;
    };

    await grow(big, SMALL);
    await grow(small, SMALL);
    const [bigAtSmall] = await measure('"big" at the small size', [big]);
    const t0 = Date.now();
    await grow(big, BIG);
    for (const id of others) await insertLogs(db, id, 0, OTHER_LOGS, OTHER_LOGS, start, end);
    await db.query('ANALYZE');
    log(`generated in ${Math.round((Date.now() - t0) / 1000)} s`);
    const [bigAtBig, smallBeside] = await measure('"big" at the large size, interleaved with "small"', [big, small]);
    const [{ total }] = (await db.query('SELECT count(*)::int AS total FROM request_logs')).rows;
    const [{ parts }] = (await db.query(`SELECT count(*)::int AS parts FROM pg_inherits WHERE inhparent = 'request_logs'::regclass`)).rows;
    console.log(
      `\nrequest_logs: ${total} rows in ${parts} partitions. Project "big": ${BIG.logs} logs, ${BIG.threads} threads, one thread of ${BIG.messages} messages; project "small": ${SMALL.logs} / ${SMALL.threads} / ${SMALL.messages}; ${OTHER_PROJECTS} other projects of ${OTHER_LOGS} logs. ${RUNS} requests per figure, one after another (client-side ms, whole response).\n`,
    );
    console.log(
      '| listing | "big" at the small size: p50 / p95 | "big" at the large size: p50 / p95 | ratio | "small" beside it: p50 / p95 | ratio big ÷ small | target ≤ 1.5× |',
    );
    console.log('|---|---|---|---|---|---|---|');
    const f = (x) => `${x.p50.toFixed(1)} / ${x.p95.toFixed(1)}`;
    for (const name of Object.keys(bigAtSmall)) {
      const grew = bigAtBig[name].p50 / bigAtSmall[name].p50;
      const beside = bigAtBig[name].p50 / smallBeside[name].p50;
      const verdict = Math.min(grew, beside) <= 1.5 ? (Math.max(grew, beside) <= 1.5 ? 'met' : 'met (interleaved)') : 'missed';
      console.log(
        `| ${name} | ${f(bigAtSmall[name])} | ${f(bigAtBig[name])} | ${grew.toFixed(2)}× | ${f(smallBeside[name])} | ${beside.toFixed(2)}× | ${verdict} |`,
      );
    }
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    await db.end().catch(() => undefined);
    if (!process.env.LISTING_KEEP) await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

async function insertLogs(db, projectId, from, to, total, start, end) {
  const step = (end - start) / total;
  await db.query(
    `INSERT INTO request_logs (project_id, id, prompt_slug, kind, environment, url, stream, do_not_record, metadata, parameters,
                               request_data, status, latency_ms, model, provider_name, started_at)
     SELECT $1, ${idSql(`(${start}::bigint + (g * ${step})::bigint)`, 'g || $4')}, 'slug-' || (g % 20), 'prompt', 'production', '/scale/big/x/production',
            false, false, jsonb_build_object('customer', 'c' || (g % 1000)), '{}', '{"variables":{}}', CASE WHEN g % 50 = 0 THEN 502 ELSE 200 END,
            g % 1000, 'echo', 'local', to_timestamp((${start} + g * ${step}) / 1000.0)
       FROM generate_series($2::int, $3::int - 1) g`,
    [projectId, from, to, projectId],
  );
}

async function waitFor(url) {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
