import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Splits inside a deployment (docs/experiments.md, "Splits"): the arms `[{version, weight}]`, how a
 * call sticks to one, and the rules that send matching calls to a given arm. Null on a plain
 * deployment, whose `version_id` is then the one version; on a split it is the first arm's.
 */
export class DeploymentSplits1765300000000 implements MigrationInterface {
  name = 'DeploymentSplits1765300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      'ALTER TABLE deployments ADD COLUMN split jsonb NULL, ADD COLUMN sticky_by varchar(80) NULL, ADD COLUMN split_rules jsonb NULL',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE deployments DROP COLUMN split, DROP COLUMN sticky_by, DROP COLUMN split_rules');
  }
}
