import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Workspace admin keys (docs/security.md, "Workspace admin keys"): an admin key (no project) with a
 * workspace manages that workspace only. NULL: a project key, or the instance's admin key.
 */
export class WorkspaceAdminKeys1764400200000 implements MigrationInterface {
  name = 'WorkspaceAdminKeys1764400200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE api_keys ADD COLUMN workspace_id uuid NULL REFERENCES workspaces (id)');
    await q.query('CREATE INDEX api_keys_workspace_idx ON api_keys (workspace_id, id) WHERE workspace_id IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX api_keys_workspace_idx');
    await q.query('ALTER TABLE api_keys DROP COLUMN workspace_id');
  }
}
