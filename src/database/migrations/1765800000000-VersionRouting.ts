import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A version's routing block and response cache (docs/routing.md): stored as given after
 * validation, null when the version has none. Versions stay immutable; both are part of the hash.
 */
export class VersionRouting1765800000000 implements MigrationInterface {
  name = 'VersionRouting1765800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE prompt_versions ADD COLUMN routing jsonb, ADD COLUMN response_cache jsonb');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE prompt_versions DROP COLUMN routing, DROP COLUMN response_cache');
  }
}
