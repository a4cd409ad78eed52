#!/usr/bin/env node
// Seeds request logs straight into PostgreSQL for the console's speed check (docs/console.md, "Speed on
// a large logs table"): `DATABASE_URL=... node scripts/seed-logs.js [count] [workspace/project] [days]`.
// Defaults: 1,000,000 logs in default/default (three versions, models echo and echo-mini, half of them
// made with the project's first key), spread over the last 7 days (UUIDv7 ids made from their
// start time, as the server makes them), in batches of 50,000 rows, one INSERT ... SELECT each.
// The project must exist (start Parley once on the database: it seeds default/default).
const { Client } = require('pg');

const SLUGS = [
  'demo-prompt',
  'demo-assistant',
  'support-reply',
  'summarize',
  'classify-ticket',
  'translate',
  'extract-order',
  'draft-email',
];
const BATCH = 50_000;

async function main() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL must name the PostgreSQL database to seed');
  const count = Number(process.argv[2] ?? 1_000_000);
  const [workspace, project] = (process.argv[3] ?? 'default/default').split('/');
  const days = Number(process.argv[4] ?? 7);
  if (!Number.isSafeInteger(count) || count <= 0 || !workspace || !project || !(days > 0))
    throw new Error('usage: seed-logs.js [count] [workspace/project] [days]');

  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const found = await client.query(
      'SELECT p.id FROM projects p JOIN workspaces w ON w.id = p.workspace_id WHERE w.slug = $1 AND p.slug = $2',
      [workspace, project],
    );
    if (!found.rows[0]) throw new Error(`no project ${workspace}/${project}: start Parley once on this database first`);
    const projectId = found.rows[0].id;
    // Every other call made with the project's first key (the key filter's half), the rest with none.
    const key = await client.query('SELECT id FROM api_keys WHERE project_id = $1 ORDER BY id LIMIT 1', [projectId]);
    const keyId = key.rows[0]?.id ?? null;
    const end = Date.now();
    const start = end - days * 86_400_000;
    const step = (end - start) / count;
    const started = Date.now();
    for (let from = 0; from < count; from += BATCH) {
      const to = Math.min(count, from + BATCH) - 1;
      // Row g starts at start + g * step ms; its id is a UUIDv7 of that time (48 time bits, version 7,
      // variant 8, the rest from md5). Every 33rd call failed (502), every 97th was rate limited (429).
      await client.query(
        `INSERT INTO request_logs (project_id, id, api_key_id, prompt_slug, kind, environment, version, provider_name, provider_type, model, url,
                                   stream, do_not_record, metadata, variables, parameters, request_data, provider_request, provider_response,
                                   status, error, latency_ms, ttft_ms, prompt_tokens, completion_tokens, total_tokens, started_at)
         SELECT $1::uuid,
                (lpad(to_hex(s.ms), 12, '0') || '7' || substr(h, 1, 3) || '8' || substr(h, 4, 15))::uuid,
                CASE WHEN g % 2 = 0 THEN $8::uuid END,
                s.slug, CASE WHEN s.slug = 'demo-assistant' THEN 'assistant' ELSE 'prompt' END,
                CASE WHEN g % 5 = 0 THEN 'staging' ELSE 'production' END, 1 + g % 3, 'local', 'local', CASE WHEN g % 4 = 1 THEN 'echo-mini' ELSE 'echo' END,
                '/default/default/' || s.slug || '/production', g % 4 = 0, false,
                jsonb_build_object('customer', 'c_' || (g % 1000)), jsonb_build_object('name', 'user ' || (g % 100)), '{}'::jsonb,
                jsonb_build_object('messages', jsonb_build_array(jsonb_build_object('role', 'user', 'content', 'question number ' || g))),
                jsonb_build_object('model', 'echo', 'messages', jsonb_build_array(jsonb_build_object('role', 'user', 'content', 'question number ' || g))),
                CASE WHEN g % 33 = 0 OR g % 97 = 0 THEN NULL ELSE jsonb_build_object('object', 'chat.completion', 'choices',
                  jsonb_build_array(jsonb_build_object('index', 0, 'message', jsonb_build_object('role', 'assistant', 'content', 'question number ' || g)))) END,
                CASE WHEN g % 33 = 0 THEN 502 WHEN g % 97 = 0 THEN 429 ELSE 200 END,
                CASE WHEN g % 33 = 0 THEN 'The provider call failed' WHEN g % 97 = 0 THEN 'Provider rate limit exceeded' END,
                20 + (g * 7919) % 900, CASE WHEN g % 4 = 0 THEN 5 + (g * 31) % 200 END, 3, 3, 6,
                to_timestamp(s.ms / 1000.0)
           FROM (SELECT g, ($2::float8 + g * $3::float8)::bigint AS ms, ($4::text[])[1 + g % $5] AS slug, md5(g::text || ':' || $2) AS h
                   FROM generate_series($6::bigint, $7::bigint) AS g) AS s`,
        [projectId, start, step, SLUGS, SLUGS.length, from, to, keyId],
      );
      process.stderr.write(`\r${to + 1} / ${count} logs (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    }
    await client.query('ANALYZE request_logs');
    process.stderr.write(`\nseeded ${count} logs in ${workspace}/${project} in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  } finally {
    await client.end();
  }
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
