import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Embedding entries in the registry (docs/embeddings.md, "Deployed embedding entries"): a third kind
 * of prompt, versioned and deployed like the others; and the project's settings, whose first is
 * whether embedding calls keep their input texts in the request log.
 */
export class EmbeddingEntries1765100000000 implements MigrationInterface {
  name = 'EmbeddingEntries1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await this.replaceKindCheck(q, ['prompt', 'assistant', 'embedding']);
    await q.query(`
      CREATE TABLE project_settings (
        project_id uuid NOT NULL REFERENCES projects (id),
        record_embedding_inputs boolean NOT NULL DEFAULT true,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (project_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE project_settings');
    await this.replaceKindCheck(q, ['prompt', 'assistant']);
  }

  /** The check's generated name is PostgreSQL's choice (and kept by the partitioned rebuild): found, not assumed. */
  private async replaceKindCheck(q: QueryRunner, kinds: string[]): Promise<void> {
    const rows: { name: string }[] = await q.query(
      `SELECT conname AS name FROM pg_constraint
        WHERE conrelid = 'prompts'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%kind%'`,
    );
    for (const { name } of rows) await q.query(`ALTER TABLE prompts DROP CONSTRAINT "${name}"`);
    const list = kinds.map((kind) => `'${kind}'`).join(', ');
    await q.query(`ALTER TABLE prompts ADD CONSTRAINT prompts_kind_check CHECK (kind IN (${list}))`);
  }
}
