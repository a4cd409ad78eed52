import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Lifecycle (docs/registry.md, "Archiving, undeploying, deleting"): a prompt, assistant or
 * embedding entry can be archived (kept, with its versions and history, but neither invoked nor
 * deployed until restored); a deployment request to a protected environment can ask to undeploy it
 * instead of deploying there. Both are plain columns with defaults, the same on
 * PGlite and PostgreSQL; neither table is partitioned in SCHEMA_MODE=partitioned.
 */
export class Lifecycle1765980000000 implements MigrationInterface {
  name = 'Lifecycle1765980000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE prompts ADD COLUMN archived_at timestamptz NULL');
    await q.query(
      `ALTER TABLE deployment_requests ADD COLUMN action varchar(16) NOT NULL DEFAULT 'deploy'
         CHECK (action IN ('deploy', 'undeploy'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE deployment_requests DROP COLUMN action');
    await q.query('ALTER TABLE prompts DROP COLUMN archived_at');
  }
}
