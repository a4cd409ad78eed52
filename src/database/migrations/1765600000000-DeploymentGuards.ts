import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Guards of a split (docs/experiments.md, "Guards"): the bounds that stop an arm, and the arms'
 * figures when the guard checker first saw the deployment (what it counts from). The partial index
 * holds only current guarded deployments, which every instance's checker reads each interval.
 */
export class DeploymentGuards1765600000000 implements MigrationInterface {
  name = 'DeploymentGuards1765600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE deployments ADD COLUMN guards jsonb NULL, ADD COLUMN guard_baseline jsonb NULL');
    await q.query('CREATE INDEX deployments_guarded_idx ON deployments (project_id, id) WHERE replaced_at IS NULL AND guards IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX deployments_guarded_idx');
    await q.query('ALTER TABLE deployments DROP COLUMN guards, DROP COLUMN guard_baseline');
  }
}
