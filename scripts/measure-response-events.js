#!/usr/bin/env node
/**
 * What storing stream events costs (docs/openai-conversations.md, "Stored events and resuming"):
 * streamed /v1/responses through the built server on a fresh PostgreSQL database, the bench's
 * fake upstream answering at once (an echo, one event per word), first with `store: false` (no
 * events stored), then stored; reports the rows, bytes and server CPU per streamed token. Not run by CI.
 *
 *   npm run build && node scripts/measure-response-events.js
 *   EVENTS_RESPONSES=100 EVENTS_WORDS=300 (defaults)
 *   PGURL=postgres://postgres@127.0.0.1:5432/postgres (the server where a fresh database is created)
 */
const { fork, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { Client } = require('pg');

const PGURL = process.env.PGURL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const RESPONSES = Number(process.env.EVENTS_RESPONSES ?? 100);
const WORDS = Number(process.env.EVENTS_WORDS ?? 300);
const ADMIN = 'events-admin-key-0123456789abcdef';
const ROOT = path.resolve(__dirname, '..');
const dbName = `parley_events_${Date.now()}`;
const dbUrl = (() => {
  const u = new URL(PGURL);
  u.pathname = `/${dbName}`;
  return u.toString();
})();

async function sql(url, text, params) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** utime + stime of a process, in ms (Linux /proc). */
function cpuMs(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function main() {
  await sql(PGURL, `CREATE DATABASE ${dbName}`);
  const upstream = fork(path.join(ROOT, 'bench', 'lib', 'fake-upstream.js'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const upstreamUrl = await new Promise((resolve) => upstream.once('message', (m) => resolve(m.url)));
  const server = spawn(process.execPath, [path.join(ROOT, 'dist', 'main.js')], {
    env: {
      ...process.env,
      DATABASE_URL: dbUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      PARLEY_ADMIN_KEY: ADMIN,
      PARLEY_SECRET_KEY: 'events-secret-key-0123456789abcdef',
      PROVIDER_ALLOWED_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const base = await new Promise((resolve) => {
    let text = '';
    server.stdout.on('data', (chunk) => {
      text += chunk;
      const match = /(?:Swagger UI: |listening on )(http:\/\/[\d.]+:\d+)/.exec(text);
      if (match) resolve(match[1]);
    });
  });
  try {
    const call = async (key, route, body) => {
      const res = await fetch(`${base}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${route}: ${res.status} ${text.slice(0, 300)}`);
      return text;
    };
    await call(ADMIN, '/v2/workspaces', { slug: 'events' });
    await call(ADMIN, '/v2/workspaces/events/projects', { slug: 'm' });
    const { key } = JSON.parse(await call(ADMIN, '/v2/workspaces/events/projects/m/api-keys', { name: 'measure' }));
    await call(key, '/v2/provider-credentials', { name: 'fake', type: 'openai', baseUrl: upstreamUrl, apiKey: 'sk-fake' });
    const input = Array.from({ length: WORDS }, (_, i) => `word${i}`).join(' ');
    const phase = async (store) => {
      for (let i = 0; i < 5; i++) await call(key, '/v1/responses', { model: 'fake/gpt-x', input, stream: true, store }); // warm-up
      const cpu = cpuMs(server.pid);
      const started = Date.now();
      for (let i = 0; i < RESPONSES; i++) await call(key, '/v1/responses', { model: 'fake/gpt-x', input, stream: true, store });
      return { cpuMs: cpuMs(server.pid) - cpu, wallMs: Date.now() - started };
    };
    const plain = await phase(false);
    const stored = await phase(true);
    const [row] = await sql(
      dbUrl,
      `SELECT count(*)::int AS batches, sum(last_sequence - first_sequence + 1)::int AS events, sum(octet_length(events))::bigint AS bytes,
                                          pg_total_relation_size('response_events') AS on_disk FROM response_events`,
    );
    const tokens = (RESPONSES + 5) * WORDS;
    const perToken = (n) => (n / tokens).toFixed(3);
    console.log(JSON.stringify({ responses: RESPONSES + 5, wordsPerResponse: WORDS, ...row }, null, 1));
    console.log(
      `per streamed token: ${perToken(row.events)} events, ${perToken(row.batches)} rows, ${perToken(Number(row.bytes))} bytes of event JSON, ${perToken(Number(row.on_disk))} bytes on disk (table, TOAST and indexes)`,
    );
    console.log(
      `server CPU per token: ${(plain.cpuMs / (RESPONSES * WORDS)).toFixed(4)} ms unstored, ${(stored.cpuMs / (RESPONSES * WORDS)).toFixed(4)} ms stored; wall per response ${(plain.wallMs / RESPONSES).toFixed(1)} ms vs ${(stored.wallMs / RESPONSES).toFixed(1)} ms`,
    );
  } finally {
    server.kill('SIGTERM');
    upstream.kill();
    await new Promise((resolve) => server.once('exit', resolve));
    await sql(PGURL, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
