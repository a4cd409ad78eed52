import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who owns a membership or a group role (docs/apply.md, "Access"): `apply` for the rows a project's
 * parley.yaml `access:` block made, which the next apply removes when the file no longer lists
 * them; `api` for the rows the members API (or the console) made, which apply never removes.
 * Existing rows were made through the API. A constant default rewrites nothing.
 */
export class MembersManagedBy1765930000000 implements MigrationInterface {
  name = 'MembersManagedBy1765930000000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of ['memberships', 'group_roles']) {
      await q.query(`ALTER TABLE ${table} ADD COLUMN managed_by varchar(8) NOT NULL DEFAULT 'api' CHECK (managed_by IN ('api', 'apply'))`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['memberships', 'group_roles']) await q.query(`ALTER TABLE ${table} DROP COLUMN managed_by`);
  }
}
