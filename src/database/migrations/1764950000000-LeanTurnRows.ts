import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two things every turn row paid for and nothing needed (docs/decisions.md, "Turn rows carry no
 * foreign key"):
 * - the foreign key to `threads`: every turn is written in the transaction that reserved its
 *   sequence numbers from a live thread, under that thread's row lock (ThreadsRepository
 *   .reserveSequences), and threads are only ever soft-deleted, so its check (an index probe and a
 *   row lock per turn, ~7 µs of PostgreSQL's CPU each) proved again what the reservation had;
 * - `thread_messages_live_idx` (project, thread, seq) WHERE deleted_at IS NULL, which repeated the
 *   unique index on the same columns: every read that used it finds its turns by that one.
 */
export class LeanTurnRows1764950000000 implements MigrationInterface {
  name = 'LeanTurnRows1764950000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE thread_messages DROP CONSTRAINT thread_messages_thread_fkey');
    await q.query('DROP INDEX thread_messages_live_idx');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX thread_messages_live_idx ON thread_messages (project_id, thread_id, seq) WHERE deleted_at IS NULL');
    await q.query(
      'ALTER TABLE thread_messages ADD CONSTRAINT thread_messages_thread_fkey FOREIGN KEY (project_id, thread_id) REFERENCES threads (project_id, id)',
    );
  }
}
