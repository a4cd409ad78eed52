import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Scopes and an optional environment restriction per API key (docs/security.md, "Scopes").
 * NULL means no restriction, which is what every existing key keeps.
 */
export class ApiKeyScopes1764400000000 implements MigrationInterface {
  name = 'ApiKeyScopes1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE api_keys ADD COLUMN scopes jsonb NULL, ADD COLUMN environments jsonb NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE api_keys DROP COLUMN environments, DROP COLUMN scopes');
  }
}
