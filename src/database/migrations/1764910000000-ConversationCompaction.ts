import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Compaction of a conversation (POST /v1/responses/compact, docs/openai-conversations.md,
 * "Compaction"): the turns a compaction summarizes keep their rows and name the compaction's turn
 * here; the model's history leaves them out from then on. NULL for every turn no compaction covers.
 */
export class ConversationCompaction1764910000000 implements MigrationInterface {
  name = 'ConversationCompaction1764910000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE thread_messages ADD COLUMN compacted_by uuid NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE thread_messages DROP COLUMN compacted_by');
  }
}
