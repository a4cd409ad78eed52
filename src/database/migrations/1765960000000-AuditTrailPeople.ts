import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit trails filtered by the person who made a change (docs/security.md, "Audit trail"):
 * `GET /v2/audit?actorUserId=` / `?actorEmail=` and `GET /v2/admin/audit` with the same filters
 * page on these indexes, newest first, as the unfiltered lists page on their primary keys. Partial:
 * changes made by keys, the CLI and the server name no person and are not indexed. The e-mail is
 * matched case-insensitively (lower()). audit_events' indexes lead with project_id: in
 * SCHEMA_MODE=partitioned the table is hash-partitioned by it, and an index made on the
 * partitioned parent is made on every partition.
 */
export class AuditTrailPeople1765960000000 implements MigrationInterface {
  name = 'AuditTrailPeople1765960000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      'CREATE INDEX audit_events_actor_user_idx ON audit_events (project_id, actor_user_id, id) WHERE actor_user_id IS NOT NULL',
    );
    await q.query(
      'CREATE INDEX audit_events_actor_email_idx ON audit_events (project_id, lower(actor_user_email), id) WHERE actor_user_email IS NOT NULL',
    );
    await q.query(
      'CREATE INDEX instance_audit_events_actor_user_idx ON instance_audit_events (actor_user_id, id) WHERE actor_user_id IS NOT NULL',
    );
    await q.query(
      'CREATE INDEX instance_audit_events_actor_email_idx ON instance_audit_events (lower(actor_user_email), id) WHERE actor_user_email IS NOT NULL',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX instance_audit_events_actor_email_idx');
    await q.query('DROP INDEX instance_audit_events_actor_user_idx');
    await q.query('DROP INDEX audit_events_actor_email_idx');
    await q.query('DROP INDEX audit_events_actor_user_idx');
  }
}
