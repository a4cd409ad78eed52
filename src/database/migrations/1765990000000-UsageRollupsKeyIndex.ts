import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A key's last use, shown with the project's keys (docs/usage.md, "Keys: spend and last use"),
 * is its newest hourly usage rollup: one backward probe of this index per key. Nothing is written
 * per call for it; a rollup row is new once an hour per key and dimension, and its upserts within
 * the hour change none of the indexed columns. Partial: the rollups of calls without a key
 * (PARLEY_ADMIN_KEY acting in a project) are not indexed. Leads with project_id (in
 * SCHEMA_MODE=partitioned the table is hash-partitioned by it; an index made on the partitioned
 * parent is made on every partition).
 */
export class UsageRollupsKeyIndex1765990000000 implements MigrationInterface {
  name = 'UsageRollupsKeyIndex1765990000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX usage_rollups_api_key_idx ON usage_rollups (project_id, api_key_id, hour) WHERE api_key_id IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX usage_rollups_api_key_idx');
  }
}
