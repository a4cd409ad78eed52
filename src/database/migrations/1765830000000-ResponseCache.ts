import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The exact response cache (docs/routing.md, "Response cache"): one row per project and key (the
 * SHA-256 of the rendered request), the stored completion and its tokens by kind, swept by
 * `expires_at`. A request log served from it says so in `cache_hit` (cost 0). Adding a column
 * with a constant default rewrites nothing, on the partitioned request_logs too.
 */
export class ResponseCache1765830000000 implements MigrationInterface {
  name = 'ResponseCache1765830000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE response_cache (
        project_id uuid NOT NULL REFERENCES projects (id),
        key char(64) NOT NULL,
        completion jsonb NOT NULL,
        tokens jsonb NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, key)
      )`);
    await q.query('CREATE INDEX response_cache_expires_idx ON response_cache (expires_at)');
    await q.query('ALTER TABLE request_logs ADD COLUMN cache_hit boolean NOT NULL DEFAULT false');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE request_logs DROP COLUMN cache_hit');
    await q.query('DROP TABLE response_cache');
  }
}
