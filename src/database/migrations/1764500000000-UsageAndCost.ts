import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Usage and cost (docs/usage.md): the request log's tokens by kind, its cost and the price it used;
 * hourly usage rollups written in the same statement as the logs; operators' price overrides.
 */
export class UsageAndCost1764500000000 implements MigrationInterface {
  name = 'UsageAndCost1764500000000';

  async up(q: QueryRunner): Promise<void> {
    // On the partitioned parent: every month's partition gets the columns too.
    await q.query(`
      ALTER TABLE request_logs
        ADD COLUMN uncached_input_tokens integer NULL,
        ADD COLUMN cache_read_tokens integer NULL,
        ADD COLUMN cache_write_tokens integer NULL,
        ADD COLUMN reasoning_tokens integer NULL,
        ADD COLUMN output_tokens integer NULL,
        ADD COLUMN usage_partial boolean NOT NULL DEFAULT false,
        ADD COLUMN cost_usd numeric NULL,
        ADD COLUMN price_ref varchar(300) NULL`);
    // One row per hour and dimensions; NULL dimensions (no version, no key) are one value each.
    await q.query(`
      CREATE TABLE usage_rollups (
        project_id uuid NOT NULL REFERENCES projects (id),
        id uuid NOT NULL,
        hour timestamptz NOT NULL,
        prompt_slug varchar NOT NULL,
        version integer NULL,
        environment varchar NOT NULL,
        model varchar NULL,
        provider_name varchar NULL,
        api_key_id uuid NULL,
        calls bigint NOT NULL,
        errors bigint NOT NULL,
        partial_calls bigint NOT NULL,
        unpriced_calls bigint NOT NULL,
        uncached_input_tokens bigint NOT NULL,
        cache_read_tokens bigint NOT NULL,
        cache_write_tokens bigint NOT NULL,
        reasoning_tokens bigint NOT NULL,
        output_tokens bigint NOT NULL,
        cost_usd numeric NOT NULL,
        latency_buckets integer[] NOT NULL,
        PRIMARY KEY (project_id, id)
      )`);
    await q.query(`
      CREATE UNIQUE INDEX usage_rollups_key_idx
        ON usage_rollups (project_id, hour, prompt_slug, environment, version, model, provider_name, api_key_id) NULLS NOT DISTINCT`);
    await q.query(`
      CREATE TABLE price_overrides (
        project_id uuid NOT NULL REFERENCES projects (id),
        id uuid NOT NULL,
        provider_name varchar(64) NOT NULL,
        model varchar(200) NOT NULL,
        input_per_mtok numeric NOT NULL,
        cache_read_per_mtok numeric NULL,
        cache_write_per_mtok numeric NULL,
        output_per_mtok numeric NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, id)
      )`);
    await q.query(`CREATE UNIQUE INDEX price_overrides_model_idx ON price_overrides (project_id, provider_name, model)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE price_overrides`);
    await q.query(`DROP TABLE usage_rollups`);
    await q.query(`
      ALTER TABLE request_logs
        DROP COLUMN uncached_input_tokens, DROP COLUMN cache_read_tokens, DROP COLUMN cache_write_tokens,
        DROP COLUMN reasoning_tokens, DROP COLUMN output_tokens, DROP COLUMN usage_partial,
        DROP COLUMN cost_usd, DROP COLUMN price_ref`);
  }
}
