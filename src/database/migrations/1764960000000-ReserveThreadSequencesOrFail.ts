import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sequence reservation of a batch of turns written in one round trip (TurnWriter): the
 * ReserveThreadSequences function, failing the whole transaction when any thread of the batch is
 * missing or deleted (SQLSTATE PT404, ThreadsRepository) instead of answering NULL for it, so that the statements sent after it in
 * the same round trip (the turns, counted back from each thread's last_seq) never run on a thread
 * that took no numbers. The writer then writes the batch again the two-round-trip way, which
 * answers that call alone with its 404 (docs/decisions.md, "Writes are group-committed").
 */
export class ReserveThreadSequencesOrFail1764960000000 implements MigrationInterface {
  name = 'ReserveThreadSequencesOrFail1764960000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION reserve_thread_sequences_or_fail(project_ids uuid[], thread_ids uuid[], counts integer[]) RETURNS void
      LANGUAGE plpgsql AS $$
      BEGIN
        IF array_position(reserve_thread_sequences(project_ids, thread_ids, counts), NULL) IS NOT NULL THEN
          RAISE EXCEPTION 'a thread of the batch is missing or deleted' USING ERRCODE = 'PT404';
        END IF;
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION reserve_thread_sequences_or_fail(uuid[], uuid[], integer[])');
  }
}
