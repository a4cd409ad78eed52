import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-key and per-project limits with the counters instances share, and idempotency keys
 * (docs/security.md, "Limits" and "Idempotency keys").
 */
export class LimitsAndIdempotency1764300000000 implements MigrationInterface {
  name = 'LimitsAndIdempotency1764300000000';

  async up(q: QueryRunner): Promise<void> {
    // subject: 'project' (the whole project), 'keys' (default for each key), or a key id.
    await q.query(`
      CREATE TABLE limit_settings (
        project_id uuid NOT NULL REFERENCES projects (id),
        subject varchar(64) NOT NULL,
        requests_per_minute integer NULL,
        concurrent_invokes integer NULL,
        tokens_per_day integer NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, subject)
      )`);
    // Fixed windows (a minute, a UTC day), counted by every instance: window_start in epoch seconds.
    await q.query(`
      CREATE TABLE limit_counters (
        project_id uuid NOT NULL,
        scope varchar(80) NOT NULL,
        window_start bigint NOT NULL,
        count bigint NOT NULL,
        PRIMARY KEY (project_id, scope, window_start)
      )`);
    // Each instance's in-flight invokes per scope, refreshed while they are running.
    await q.query(`
      CREATE TABLE limit_inflight (
        project_id uuid NOT NULL,
        scope varchar(80) NOT NULL,
        instance_id uuid NOT NULL,
        count integer NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, scope, instance_id)
      )`);
    // project_id is the nil UUID for the admin API's creating POSTs (no project), so no foreign key.
    await q.query(`
      CREATE TABLE idempotency_keys (
        project_id uuid NOT NULL,
        key varchar(255) NOT NULL,
        request_hash char(64) NOT NULL,
        state varchar(16) NOT NULL,
        lease_until timestamptz NOT NULL,
        outcome jsonb NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, key)
      )`);
    await q.query(`CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE idempotency_keys');
    await q.query('DROP TABLE limit_inflight');
    await q.query('DROP TABLE limit_counters');
    await q.query('DROP TABLE limit_settings');
  }
}
