import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Workspaces, projects, API keys, threads and thread messages. Project-owned tables key on
 * (project_id, id) so the schema can later be distributed by project (Citus) without a rewrite.
 */
export class Foundation1763800000000 implements MigrationInterface {
  name = 'Foundation1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workspaces (
        id uuid PRIMARY KEY,
        slug varchar(64) NOT NULL UNIQUE,
        name varchar(200) NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE TABLE projects (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces (id),
        slug varchar(64) NOT NULL,
        name varchar(200) NOT NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT projects_workspace_slug_key UNIQUE (workspace_id, slug)
      )`);
    // project_id is null for admin keys; only the SHA-256 of a key is stored.
    await q.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY,
        project_id uuid NULL REFERENCES projects (id),
        name varchar(200) NOT NULL,
        key_hash char(64) NOT NULL UNIQUE,
        key_prefix varchar(16) NOT NULL,
        created_at timestamptz NOT NULL,
        revoked_at timestamptz NULL
      )`);
    await q.query(`CREATE INDEX api_keys_project_idx ON api_keys (project_id, id)`);
    await q.query(`
      CREATE TABLE threads (
        project_id uuid NOT NULL REFERENCES projects (id),
        id uuid NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}',
        create_log jsonb NOT NULL DEFAULT '{}',
        last_seq integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        deleted_at timestamptz NULL,
        PRIMARY KEY (project_id, id)
      )`);
    // Keyset listing, newest first: WHERE project_id = $1 AND id < $after ORDER BY id DESC.
    await q.query(`CREATE INDEX threads_live_idx ON threads (project_id, id) WHERE deleted_at IS NULL`);
    await q.query(`
      CREATE TABLE thread_messages (
        project_id uuid NOT NULL,
        id uuid NOT NULL,
        thread_id uuid NOT NULL,
        seq integer NOT NULL,
        content jsonb NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}',
        request_log_id uuid NULL,
        created_at timestamptz NOT NULL,
        deleted_at timestamptz NULL,
        PRIMARY KEY (project_id, id),
        CONSTRAINT thread_messages_thread_fkey FOREIGN KEY (project_id, thread_id) REFERENCES threads (project_id, id),
        CONSTRAINT thread_messages_seq_key UNIQUE (project_id, thread_id, seq)
      )`);
    await q.query(`CREATE INDEX thread_messages_live_idx ON thread_messages (project_id, thread_id, seq) WHERE deleted_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE thread_messages');
    await q.query('DROP TABLE threads');
    await q.query('DROP TABLE api_keys');
    await q.query('DROP TABLE projects');
    await q.query('DROP TABLE workspaces');
  }
}
