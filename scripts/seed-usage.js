#!/usr/bin/env node
// Seeds hourly usage rollups straight into PostgreSQL for the usage API's speed check (docs/usage.md,
// "Speed"): `DATABASE_URL=... node scripts/seed-usage.js [calls] [workspace/project] [days]`.
// Defaults: 10,000,000 calls' worth in default/default over the last 30 days: every hour, 80
// combinations (8 prompts x 2 environments, each prompt on one of 4 models, x 5 keys), the calls
// spread evenly over them; one INSERT ... SELECT per day, then the daily rollups of those rows (the
// server keeps both). The project must exist (start Parley once on the database: it seeds
// default/default). The /v2/usage query reads these rows only.
const { Client } = require('pg');
const { randomUUID } = require('node:crypto');

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
const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4-0', 'o3-mini'];
const ENVIRONMENTS = ['production', 'staging'];
const KEYS = 5;
const LATENCY_BUCKETS = 32;

async function main() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL must name the PostgreSQL database to seed');
  const calls = Number(process.argv[2] ?? 10_000_000);
  const [workspace, project] = (process.argv[3] ?? 'default/default').split('/');
  const days = Number(process.argv[4] ?? 30);
  if (!Number.isSafeInteger(calls) || calls <= 0 || !workspace || !project || !(days > 0))
    throw new Error('usage: seed-usage.js [calls] [workspace/project] [days]');
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const found = await client.query(
      'SELECT p.id FROM projects p JOIN workspaces w ON w.id = p.workspace_id WHERE w.slug = $1 AND p.slug = $2',
      [workspace, project],
    );
    if (!found.rows[0]) throw new Error(`no project ${workspace}/${project}: start Parley once on this database first`);
    const projectId = found.rows[0].id;
    const keys = Array.from({ length: KEYS }, () => randomUUID());
    const combos = SLUGS.length * ENVIRONMENTS.length * KEYS;
    const perRow = Math.max(1, Math.round(calls / (days * 24 * combos)));
    const lastHour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    const started = Date.now();
    let rows = 0;
    for (let day = 0; day < days; day += 1) {
      const firstHour = new Date(lastHour - (day + 1) * 86_400_000 + 3_600_000);
      // Hours x slugs x environments x keys; per row perRow calls, ~2 % errors, tokens and cost per call
      // of a few thousand tokens at list prices, latencies spread over buckets 18-26 (0.5-8 s).
      const result = await client.query(
        `INSERT INTO usage_rollups (project_id, id, hour, prompt_slug, version, environment, model, provider_name, api_key_id,
                                    calls, errors, partial_calls, unpriced_calls, uncached_input_tokens, cache_read_tokens, cache_write_tokens,
                                    reasoning_tokens, output_tokens, cost_usd, latency_buckets)
         SELECT $1::uuid, gen_random_uuid(), $2::timestamptz + h * interval '1 hour', s.slug, 1 + s.i % 3, e.env, ($5::text[])[1 + s.i % 4],
                CASE WHEN s.i % 4 = 2 THEN 'anthropic' ELSE 'openai' END, k.key,
                $3::bigint, $3::bigint / 50, 0, 0, $3::bigint * 1200, $3::bigint * 800, $3::bigint * 40, $3::bigint * 150, $3::bigint * 350,
                ($3::bigint * 0.0061)::numeric,
                (SELECT array_agg(CASE WHEN b BETWEEN 18 AND 26 THEN $3::int / 9 ELSE 0 END ORDER BY b) FROM generate_series(0, ${LATENCY_BUCKETS - 1}) b)
           FROM generate_series(0, 23) h,
                unnest($4::text[]) WITH ORDINALITY AS s (slug, i),
                unnest($6::text[]) AS e (env),
                unnest($7::uuid[]) AS k (key)
         ON CONFLICT DO NOTHING`,
        [projectId, firstHour, perRow, SLUGS, MODELS, ENVIRONMENTS, keys],
      );
      rows += result.rowCount;
    }
    // The daily rollups of the same hours, as the server keeps them beside the hourly ones (docs/usage.md, "Rollups").
    const daily = await client.query(
      `INSERT INTO usage_rollups_daily (project_id, id, day, prompt_slug, version, environment, model, provider_name, api_key_id,
                                        calls, errors, partial_calls, unpriced_calls, uncached_input_tokens, cache_read_tokens, cache_write_tokens,
                                        reasoning_tokens, output_tokens, cost_usd, latency_buckets)
       SELECT project_id, gen_random_uuid(), date_trunc('day', hour, 'UTC'), prompt_slug, version, environment, model, provider_name, api_key_id,
              sum(calls), sum(errors), sum(partial_calls), sum(unpriced_calls), sum(uncached_input_tokens), sum(cache_read_tokens), sum(cache_write_tokens),
              sum(reasoning_tokens), sum(output_tokens), sum(cost_usd),
              ARRAY[${Array.from({ length: LATENCY_BUCKETS }, (_, i) => `sum(latency_buckets[${i + 1}])`).join(', ')}]::int[]
         FROM usage_rollups WHERE project_id = $1 AND api_key_id = ANY ($2::uuid[])
        GROUP BY project_id, date_trunc('day', hour, 'UTC'), prompt_slug, version, environment, model, provider_name, api_key_id
       ON CONFLICT (project_id, day, prompt_slug, environment, version, model, provider_name, api_key_id) DO UPDATE SET
              calls = usage_rollups_daily.calls + EXCLUDED.calls, errors = usage_rollups_daily.errors + EXCLUDED.errors,
              partial_calls = usage_rollups_daily.partial_calls + EXCLUDED.partial_calls,
              unpriced_calls = usage_rollups_daily.unpriced_calls + EXCLUDED.unpriced_calls,
              uncached_input_tokens = usage_rollups_daily.uncached_input_tokens + EXCLUDED.uncached_input_tokens,
              cache_read_tokens = usage_rollups_daily.cache_read_tokens + EXCLUDED.cache_read_tokens,
              cache_write_tokens = usage_rollups_daily.cache_write_tokens + EXCLUDED.cache_write_tokens,
              reasoning_tokens = usage_rollups_daily.reasoning_tokens + EXCLUDED.reasoning_tokens,
              output_tokens = usage_rollups_daily.output_tokens + EXCLUDED.output_tokens, cost_usd = usage_rollups_daily.cost_usd + EXCLUDED.cost_usd,
              latency_buckets = (SELECT array_agg(a + b ORDER BY i) FROM unnest(usage_rollups_daily.latency_buckets, EXCLUDED.latency_buckets) WITH ORDINALITY AS t (a, b, i))`,
      [projectId, keys],
    );
    await client.query('ANALYZE usage_rollups');
    await client.query('ANALYZE usage_rollups_daily');
    console.log(
      `seeded ${rows} hourly and ${daily.rowCount} daily rollup rows (${perRow} calls each: ${rows * perRow} calls) in ${workspace}/${project} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  } finally {
    await client.end();
  }
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
