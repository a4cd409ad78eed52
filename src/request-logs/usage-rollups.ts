/**
 * Hourly usage rollups (docs/usage.md, "Rollups"): one row per hour × project × prompt × version ×
 * environment × model × provider × key, with calls, errors, tokens by kind, cost and a latency
 * histogram; and the same per UTC day (usage_rollups_daily), which whole-day reports read. They are
 * written by the very statement that inserts the request logs: the logs' INSERT is a data-modifying
 * CTE whose RETURNING rows the rollup upserts sum, so a commit holds all or none, and no round trip
 * is added to a call.
 */
import { newId } from '../common/ids';

/** Latency histogram buckets: bucket i holds latencies up to 2^((i + 8) / 2) ms; the last one everything above. */
export const LATENCY_BUCKETS = 32;

/** The upper bound (ms) of latency bucket `i`; the last bucket has none. */
export function latencyBucketBoundMs(i: number): number {
  return i >= LATENCY_BUCKETS - 1 ? Infinity : 2 ** ((i + 8) / 2);
}

/**
 * Where each bucket after the first starts, for an integer latency: bucket i ends at
 * floor(latencyBucketBoundMs(i)), so the next one starts one millisecond later.
 */
export const LATENCY_BUCKET_STARTS: readonly number[] = Array.from(
  { length: LATENCY_BUCKETS - 1 },
  (_, i) => Math.floor(latencyBucketBoundMs(i)) + 1,
);

/**
 * The bucket of one latency (an integer), as the statement computes it: the number of bucket starts
 * at or below it, by a binary search of a constant array. The same as
 * ceil(2 · log2(latency)) − 8 clamped to the buckets, without a numeric logarithm per bucket and
 * row (32 of them per log cost ~0.8 ms of PostgreSQL CPU per call; docs/performance.md).
 */
const BUCKET_OF_LATENCY = `width_bucket(latency_ms, '{${LATENCY_BUCKET_STARTS.join(',')}}'::int[])`;

const DIMENSIONS = ['prompt_slug', 'version', 'environment', 'model', 'provider_name', 'api_key_id'] as const;
const TOKEN_COLUMNS = ['uncached_input_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'output_tokens'] as const;
const RETURNED = [
  'project_id',
  'started_at',
  'status',
  'usage_partial',
  'cost_usd',
  'total_tokens',
  'latency_ms',
  ...DIMENSIONS,
  ...TOKEN_COLUMNS,
];

/** Summed per group; also what a check compares with the logs (test/usage-rollups-durability). */
export const ROLLUP_SUMS: Record<string, string> = {
  calls: 'count(*)',
  errors: 'count(*) FILTER (WHERE status >= 400)',
  partial_calls: 'count(*) FILTER (WHERE usage_partial)',
  // Calls with usage but no known price: what "unpriced" lists. A call without usage has no cost to price.
  unpriced_calls: 'count(*) FILTER (WHERE cost_usd IS NULL AND total_tokens IS NOT NULL)',
  ...Object.fromEntries(TOKEN_COLUMNS.map((c) => [c, `coalesce(sum(${c}), 0)`])),
  cost_usd: 'coalesce(sum(cost_usd), 0)',
  latency_buckets: `ARRAY[${Array.from({ length: LATENCY_BUCKETS }, (_, i) => `count(*) FILTER (WHERE ${BUCKET_OF_LATENCY} = ${i})`).join(', ')}]::int[]`,
};

const HOUR = `date_trunc('hour', started_at, 'UTC')`;
const KEY = ['project_id', 'hour', 'prompt_slug', 'environment', 'version', 'model', 'provider_name', 'api_key_id'];
const DAY = `date_trunc('day', hour, 'UTC')`;
const DAY_KEY = ['project_id', 'day', ...KEY.slice(2)];

/** The statement text by the logs' INSERT text: built once per shape, not on every call. */
const statements = new Map<string, string>();

/**
 * `logsInsert` (the request logs' INSERT, parameters $1..$n) followed by the hourly and daily rollup
 * upserts of the rows it inserted, as one statement. `ids` adds the ids of new rollup rows (one per
 * log is always enough, for either table) as the last parameter. Groups are upserted in key order, so
 * two concurrent flushes lock shared rollup rows in the same order and never deadlock.
 */
export function withRollups(logsInsert: { sql: string; parameters: unknown[] }, logCount: number): { sql: string; parameters: unknown[] } {
  const ids = Array.from({ length: logCount }, () => newId());
  let sql = statements.get(logsInsert.sql);
  if (!sql) {
    sql = statementFor(logsInsert.sql, logsInsert.parameters.length + 1);
    // Bounded like fast-insert's: one per shape of the logs' INSERT, a handful in practice.
    if (statements.size >= 500) statements.clear();
    statements.set(logsInsert.sql, sql);
  }
  // As array text: node-postgres and PGlite take it alike.
  return { sql, parameters: [...logsInsert.parameters, `{${ids.join(',')}}`] };
}

function statementFor(logsSql: string, idsIndex: number): string {
  const idsParam = `$${idsIndex}::uuid[]`;
  const sums = Object.entries(ROLLUP_SUMS);
  const columns = sums.map(([column]) => column);
  const merge = columns.map((column) =>
    column === 'latency_buckets'
      ? `latency_buckets = (SELECT array_agg(a + b ORDER BY i) FROM unnest(r.latency_buckets, EXCLUDED.latency_buckets) WITH ORDINALITY AS t (a, b, i))`
      : `${column} = r.${column} + EXCLUDED.${column}`,
  );
  // The day's sums from the hour's (a flush rarely spans two hours, so h has about one row per group).
  const daySums = columns.map((column) =>
    column === 'latency_buckets'
      ? `ARRAY[${Array.from({ length: LATENCY_BUCKETS }, (_, i) => `sum(latency_buckets[${i + 1}])`).join(', ')}]::int[]`
      : `sum(${column})`,
  );
  const order = `prompt_slug, environment, version, model, provider_name, api_key_id`;
  // The daily upsert is not read by the main query, so PostgreSQL runs it after it: every statement
  // locks its hourly rows, then its daily rows, each in key order; two flushes cannot deadlock.
  return `WITH l AS (${logsSql} RETURNING ${RETURNED.join(', ')}),
h AS (SELECT project_id, ${HOUR} AS hour, ${DIMENSIONS.join(', ')}, ${sums.map(([column, sum]) => `${sum} AS ${column}`).join(', ')}
        FROM l GROUP BY project_id, ${HOUR}, ${DIMENSIONS.join(', ')}),
d AS (INSERT INTO usage_rollups_daily AS r (project_id, id, day, ${DIMENSIONS.join(', ')}, ${columns.join(', ')})
      SELECT project_id, (${idsParam})[row_number() OVER ()], ${DAY}, ${DIMENSIONS.join(', ')}, ${daySums.join(', ')}
        FROM h
       GROUP BY project_id, ${DAY}, ${DIMENSIONS.join(', ')}
       ORDER BY project_id, ${DAY}, ${order}
      ON CONFLICT (${DAY_KEY.join(', ')}) DO UPDATE SET ${merge.join(', ')})
INSERT INTO usage_rollups AS r (project_id, id, hour, ${DIMENSIONS.join(', ')}, ${columns.join(', ')})
SELECT project_id, (${idsParam})[row_number() OVER ()], hour, ${DIMENSIONS.join(', ')}, ${columns.join(', ')}
  FROM h
 ORDER BY project_id, hour, ${order}
ON CONFLICT (${KEY.join(', ')}) DO UPDATE SET ${merge.join(', ')}`;
}

/** The rollups recomputed from request logs: what they must equal (tests, and docs/usage.md's check query). */
export function rollupsFromLogsQuery(where: string, unit: 'hour' | 'day' = 'hour'): string {
  const sums = Object.entries(ROLLUP_SUMS);
  const time = `date_trunc('${unit}', started_at, 'UTC')`;
  return `SELECT project_id, ${time} AS ${unit}, ${DIMENSIONS.join(', ')}, ${sums.map(([column, sum]) => `${sum} AS ${column}`).join(', ')}
  FROM request_logs WHERE ${where}
 GROUP BY project_id, ${time}, ${DIMENSIONS.join(', ')}`;
}
