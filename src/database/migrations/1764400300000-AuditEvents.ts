import { MigrationInterface, QueryRunner } from 'typeorm';

/** The audit trail (docs/security.md, "Audit trail"): one row per change to a project's configuration. */
export class AuditEvents1764400300000 implements MigrationInterface {
  name = 'AuditEvents1764400300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE audit_events (
        project_id uuid NOT NULL REFERENCES projects (id),
        id uuid NOT NULL,
        created_at timestamptz NOT NULL,
        actor_kind varchar(16) NOT NULL,
        actor_key_id uuid NULL,
        actor_key_name varchar(200) NULL,
        action varchar(64) NOT NULL,
        resource_type varchar(32) NOT NULL,
        resource_id varchar(200) NOT NULL,
        before jsonb NULL,
        after jsonb NULL,
        request_id varchar(128) NULL,
        PRIMARY KEY (project_id, id)
      )`);
    // Retention deletes by age across projects.
    await q.query('CREATE INDEX audit_events_created_idx ON audit_events (created_at, project_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE audit_events');
  }
}
