import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SCIM (docs/security.md, "SCIM"): what a workspace's directory says of a user (names, e-mails)
 * is kept on its own record, so a SCIM resource reads back as the directory wrote it while the
 * instance-wide `users` row (which other workspaces may know) is left alone.
 */
export class ScimUserAttributes1765940000000 implements MigrationInterface {
  name = 'ScimUserAttributes1765940000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE scim_users ADD COLUMN given_name varchar(200) NULL');
    await q.query('ALTER TABLE scim_users ADD COLUMN family_name varchar(200) NULL');
    await q.query('ALTER TABLE scim_users ADD COLUMN display_name varchar(200) NULL');
    // [{value, type, primary}], at most 10 (src/scim/scim-user-input.ts).
    await q.query(`ALTER TABLE scim_users ADD COLUMN emails jsonb NOT NULL DEFAULT '[]'::jsonb`);
    await q.query('CREATE INDEX scim_users_name_idx ON scim_users (workspace_id, lower(user_name))');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX scim_users_name_idx');
    await q.query('ALTER TABLE scim_users DROP COLUMN emails');
    await q.query('ALTER TABLE scim_users DROP COLUMN display_name');
    await q.query('ALTER TABLE scim_users DROP COLUMN family_name');
    await q.query('ALTER TABLE scim_users DROP COLUMN given_name');
  }
}
