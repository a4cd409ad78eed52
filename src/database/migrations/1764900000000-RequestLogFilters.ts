import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * GET /v2/logs filters by version (of a prompt), model, provider and key: each a keyset index that
 * leads with project_id and pages by id, like the others (docs/pagination-explain.md). Made on the
 * partitioned parent, so every partition, present or made later, has them.
 */
export class RequestLogFilters1764900000000 implements MigrationInterface {
  name = 'RequestLogFilters1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX request_logs_version_idx ON request_logs (project_id, prompt_slug, version, id)');
    await q.query('CREATE INDEX request_logs_model_idx ON request_logs (project_id, model, id) WHERE model IS NOT NULL');
    await q.query('CREATE INDEX request_logs_provider_idx ON request_logs (project_id, provider_name, id) WHERE provider_name IS NOT NULL');
    await q.query('CREATE INDEX request_logs_key_idx ON request_logs (project_id, api_key_id, id) WHERE api_key_id IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    for (const index of ['version', 'model', 'provider', 'key']) await q.query(`DROP INDEX request_logs_${index}_idx`);
  }
}
