import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Whether a credential's `apiKeyEnv` (with its base URL) was set by the operator (the admin key or
 * the CLI on the database): only then may it name a variable PROVIDER_KEY_BINDINGS does not bind
 * (docs/security.md). Rows from before are not: their unbound variables lend no key any more.
 */
export class ProviderKeyEnvByOperator1764400100000 implements MigrationInterface {
  name = 'ProviderKeyEnvByOperator1764400100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE provider_credentials ADD COLUMN api_key_env_by_operator boolean NOT NULL DEFAULT false');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE provider_credentials DROP COLUMN api_key_env_by_operator');
  }
}
