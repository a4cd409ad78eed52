import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Conversation items deleted one by one (DELETE /v1/conversations/{id}/items/{item_id}) where a
 * thread message holds several items: the row keeps its content (soft delete, as everywhere) and
 * lists the deleted item positions here; NULL for every row no such delete touched.
 * See docs/openai-conversations.md.
 */
export class ConversationItems1764100000000 implements MigrationInterface {
  name = 'ConversationItems1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE thread_messages ADD COLUMN deleted_items jsonb NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE thread_messages DROP COLUMN deleted_items');
  }
}
