import { MigrationInterface, QueryRunner } from 'typeorm';

/** One row per invoke, success or failure (DESIGN.md §4.9). */
export class RequestLogs1763950000000 implements MigrationInterface {
  name = 'RequestLogs1763950000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE request_logs (
        project_id uuid NOT NULL REFERENCES projects (id),
        id uuid NOT NULL,
        api_key_id uuid NULL,
        thread_id uuid NULL,
        prompt_id uuid NULL,
        prompt_slug varchar(64) NOT NULL,
        kind varchar(16) NOT NULL,
        environment varchar(64) NOT NULL,
        deployment_id uuid NULL,
        deployment_version integer NULL,
        version integer NULL,
        prompt_history_hash varchar(64) NULL,
        provider_name varchar(64) NULL,
        provider_type varchar(16) NULL,
        credential_id uuid NULL,
        model varchar(200) NULL,
        url text NOT NULL,
        request_ip varchar(64) NULL,
        stream boolean NOT NULL,
        do_not_record boolean NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}',
        variables jsonb NULL,
        parameters jsonb NOT NULL DEFAULT '{}',
        request_data jsonb NULL,
        provider_request jsonb NULL,
        provider_response jsonb NULL,
        status integer NOT NULL,
        error text NULL,
        latency_ms integer NOT NULL,
        ttft_ms integer NULL,
        prompt_tokens integer NULL,
        completion_tokens integer NULL,
        total_tokens integer NULL,
        started_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, id)
      )`);
    // GET /v2/logs filters; every one leads with project_id and pages by id (UUIDv7, newest first).
    await q.query(`CREATE INDEX request_logs_slug_idx ON request_logs (project_id, prompt_slug, id)`);
    await q.query(`CREATE INDEX request_logs_thread_idx ON request_logs (project_id, thread_id, id) WHERE thread_id IS NOT NULL`);
    await q.query(`CREATE INDEX request_logs_status_idx ON request_logs (project_id, status, id)`);
    await q.query(`CREATE INDEX request_logs_metadata_idx ON request_logs USING gin (metadata jsonb_path_ops)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE request_logs');
  }
}
