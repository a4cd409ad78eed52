import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deployment requests (docs/security.md, "Approvals") name what asked: a person, a key, or the
 * operator (`parley apply` on the database), which the ids alone cannot tell apart (the admin key
 * from the environment has no id either). Pending requests are found per prompt and environment
 * (a deploy identical to a pending one answers that one).
 */
export class DeploymentRequestKinds1765950000000 implements MigrationInterface {
  name = 'DeploymentRequestKinds1765950000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE deployment_requests ADD COLUMN requested_by_kind varchar(16) NOT NULL DEFAULT 'user'
         CHECK (requested_by_kind IN ('user', 'key', 'operator'))`,
    );
    await q.query(
      "CREATE INDEX deployment_requests_pending_idx ON deployment_requests (project_id, prompt_id, environment_id) WHERE status = 'pending'",
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX deployment_requests_pending_idx');
    await q.query('ALTER TABLE deployment_requests DROP COLUMN requested_by_kind');
  }
}
