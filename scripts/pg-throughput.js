'use strict';
/**
 * How far one PostgreSQL goes for Parley's two growing tables (docs/scaling.md): the write
 * statements of the invoke path, straight to the database (no HTTP, no Parley), for a fixed time.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/<fresh db> [SCHEMA_MODE=partitioned] \
 *     node scripts/pg-throughput.js [seconds per case, default 10] [connections, default 16]
 *
 * The database is migrated with Parley's own migrations first (dist/, so `npm run build`).
 * Cases:
 * - assistant turn: what an assistant call commits, in one transaction — the thread's counter
 *   (UPDATE ... RETURNING last_seq), its two messages (user turn and answer) and its request log;
 *   on 1000 threads (the spread of real traffic) and on one thread (serialised by its row lock);
 * - request log, one row per statement (autocommit), and in batches of 100 (group commit).
 */
const { randomUUID } = require('node:crypto');
const path = require('node:path');
const { Pool } = require('pg');

const ROOT = path.resolve(__dirname, '..');
const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 16);
const url = process.env.DATABASE_URL;

/** UUIDv7-shaped ids, time-ordered like Parley's (src/common/ids.ts). */
function uuidv7() {
  const hex = Date.now().toString(16).padStart(12, '0');
  const rest = randomUUID().replace(/-/g, '');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${rest.slice(13, 16)}-${((parseInt(rest[16], 16) & 3) | 8).toString(16)}${rest.slice(17, 20)}-${rest.slice(20, 32)}`;
}

const REQUEST = { messages: [{ role: 'user', content: 'Summarize the attached meeting notes in three bullet points, please.' }] };
const RESPONSE = {
  id: 'chatcmpl-x',
  object: 'chat.completion',
  model: 'gpt-fake',
  choices: [{ index: 0, message: { role: 'assistant', content: 'x'.repeat(600) }, finish_reason: 'stop' }],
};
const LOG_COLUMNS =
  'project_id, id, thread_id, prompt_slug, kind, environment, url, stream, do_not_record, request_data, provider_request, provider_response, status, latency_ms, started_at';

function logValues(projectId, threadId) {
  const request = JSON.stringify(REQUEST);
  return [
    projectId,
    uuidv7(),
    threadId,
    'helper',
    'assistant',
    'production',
    '/ws/proj/helper/production',
    false,
    false,
    request,
    request,
    JSON.stringify(RESPONSE),
    200,
    120,
    new Date(),
  ];
}

const placeholders = (rows, width) =>
  Array.from({ length: rows }, (_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(', ')})`).join(', ');

async function migrate() {
  const { loadAppConfig } = require(path.join(ROOT, 'dist', 'config', 'app-config'));
  const { buildDataSourceOptions } = require(path.join(ROOT, 'dist', 'database', 'data-source-options'));
  const { runMigrations } = require(path.join(ROOT, 'dist', 'database', 'migrate'));
  const { DataSource } = require('typeorm');
  const config = loadAppConfig({ DATABASE_URL: url, SCHEMA_MODE: process.env.SCHEMA_MODE });
  const dataSource = await new DataSource(buildDataSourceOptions(config)).initialize();
  await runMigrations(dataSource, false, config.schemaMode);
  await dataSource.destroy();
  return config.schemaMode;
}

/** Runs `work` on every connection until the time is up; returns operations done. */
async function timed(pool, work) {
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: connections }, async (_, worker) => {
      const client = await pool.connect();
      try {
        while (Date.now() < deadline) {
          await work(client, worker);
          done++;
        }
      } finally {
        client.release();
      }
    }),
  );
  return done;
}

async function main() {
  if (!url) throw new Error('DATABASE_URL is required');
  const schemaMode = await migrate();
  const pool = new Pool({ connectionString: url, max: connections });
  const projectId = randomUUID();
  const workspaceId = randomUUID();
  await pool.query(`INSERT INTO workspaces (id, slug, name, created_at) VALUES ($1, $2, 'bench', now())`, [
    workspaceId,
    `bench-${Date.now()}`,
  ]);
  await pool.query(`INSERT INTO projects (id, workspace_id, slug, name, created_at) VALUES ($1, $2, 'bench', 'bench', now())`, [
    projectId,
    workspaceId,
  ]);
  const threads = Array.from({ length: 1000 }, () => uuidv7());
  await pool.query(`INSERT INTO threads (project_id, id, created_at) SELECT $1, t, now() FROM unnest($2::uuid[]) AS t`, [
    projectId,
    threads,
  ]);

  const turn = (pickThread) => async (client, worker) => {
    const threadId = pickThread(worker);
    await client.query('BEGIN');
    try {
      const { rows } = await client.query(
        'UPDATE threads SET last_seq = last_seq + 2 WHERE project_id = $1 AND id = $2 RETURNING last_seq',
        [projectId, threadId],
      );
      const seq = rows[0].last_seq - 2;
      const log = logValues(projectId, threadId);
      await client.query(`INSERT INTO request_logs (${LOG_COLUMNS}) VALUES ${placeholders(1, log.length)}`, log);
      await client.query(
        `INSERT INTO thread_messages (project_id, id, thread_id, seq, content, request_log_id, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, now()), ($1, $7, $3, $8, $9, $6, now())`,
        [
          projectId,
          uuidv7(),
          threadId,
          seq + 1,
          JSON.stringify(REQUEST.messages),
          log[1],
          uuidv7(),
          seq + 2,
          JSON.stringify([RESPONSE.choices[0].message]),
        ],
      );
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    }
  };
  const results = [];
  const measure = async (name, rowsPerOp, work) => {
    const ops = await timed(pool, work);
    results.push({ name, ops, opsPerS: ops / seconds, rowsPerS: (ops * rowsPerOp) / seconds });
  };
  let next = 0;
  await measure(
    'assistant turn, 1000 threads (1 UPDATE + 2 messages + 1 log, one transaction)',
    4,
    turn(() => threads[next++ % threads.length]),
  );
  await measure(
    'assistant turn, all on one thread',
    4,
    turn(() => threads[0]),
  );
  await measure('request log, one row per INSERT (autocommit)', 1, async (client) => {
    const log = logValues(projectId, null);
    await client.query(`INSERT INTO request_logs (${LOG_COLUMNS}) VALUES ${placeholders(1, log.length)}`, log);
  });
  await measure('request log, 100 rows per INSERT (group commit)', 100, async (client) => {
    const values = [];
    for (let i = 0; i < 100; i++) values.push(...logValues(projectId, null));
    await client.query(`INSERT INTO request_logs (${LOG_COLUMNS}) VALUES ${placeholders(100, 15)}`, values);
  });
  const { rows } = await pool.query('SHOW server_version');
  await pool.end();
  console.log(`PostgreSQL ${rows[0].server_version}, SCHEMA_MODE=${schemaMode}, ${connections} connections, ${seconds} s per case`);
  for (const r of results)
    console.log(`${r.name.padEnd(84)} ${r.opsPerS.toFixed(0).padStart(7)} ops/s ${r.rowsPerS.toFixed(0).padStart(8)} rows/s`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
