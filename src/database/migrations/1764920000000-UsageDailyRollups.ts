import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Daily usage rollups beside the hourly ones (docs/usage.md, "Rollups"): the same sums per UTC day,
 * written by the statement that writes the logs and the hourly rows, so that reports on whole days
 * read 24 times fewer rows. Filled from the hourly rows already there.
 */
export class UsageDailyRollups1764920000000 implements MigrationInterface {
  name = 'UsageDailyRollups1764920000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE usage_rollups_daily (LIKE usage_rollups INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
    await q.query(`ALTER TABLE usage_rollups_daily RENAME COLUMN hour TO day`);
    await q.query(
      `ALTER TABLE usage_rollups_daily ADD PRIMARY KEY (project_id, id), ADD FOREIGN KEY (project_id) REFERENCES projects (id)`,
    );
    await q.query(`
      CREATE UNIQUE INDEX usage_rollups_daily_key_idx
        ON usage_rollups_daily (project_id, day, prompt_slug, environment, version, model, provider_name, api_key_id) NULLS NOT DISTINCT`);
    await q.query(`
      INSERT INTO usage_rollups_daily (project_id, id, day, prompt_slug, version, environment, model, provider_name, api_key_id,
                                       calls, errors, partial_calls, unpriced_calls, uncached_input_tokens, cache_read_tokens,
                                       cache_write_tokens, reasoning_tokens, output_tokens, cost_usd, latency_buckets)
      SELECT project_id, gen_random_uuid(), date_trunc('day', hour, 'UTC'), prompt_slug, version, environment, model, provider_name, api_key_id,
             sum(calls), sum(errors), sum(partial_calls), sum(unpriced_calls), sum(uncached_input_tokens), sum(cache_read_tokens),
             sum(cache_write_tokens), sum(reasoning_tokens), sum(output_tokens), sum(cost_usd),
             ARRAY[${Array.from({ length: 32 }, (_, i) => `sum(latency_buckets[${i + 1}])`).join(', ')}]::int[]
        FROM usage_rollups
       GROUP BY project_id, date_trunc('day', hour, 'UTC'), prompt_slug, version, environment, model, provider_name, api_key_id`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE usage_rollups_daily`);
  }
}
