import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A thread's history version: raised by every change to turns it already has (a message or item
 * deleted, a compaction made or undone), never by an append, which raises last_seq. A history an
 * instance holds (src/messages/history-cache.ts) is still exact while the thread's version is the
 * one it was read at: it then needs only the turns after its last_seq (docs/decisions.md,
 * "Thread histories are cached, checked on every read").
 */
export class ThreadHistoryVersion1764930000000 implements MigrationInterface {
  name = 'ThreadHistoryVersion1764930000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE threads ADD COLUMN history_version integer NOT NULL DEFAULT 0');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE threads DROP COLUMN history_version');
  }
}
