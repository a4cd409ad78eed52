import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sequence reservation of a group-committed batch of turns in one statement
 * (ThreadsRepository.reserveSequences): for each thread in the order given, the primary-key UPDATE
 * that takes `counts[i]` numbers under the row lock; the first number of each block, NULL for a
 * thread not live. A loop of key lookups, because a single UPDATE joined to the batch's keys was
 * planned as a scan of every live thread on a table without statistics (docs/decisions.md, "Plans
 * that do not depend on statistics").
 */
export class ReserveThreadSequences1764940000000 implements MigrationInterface {
  name = 'ReserveThreadSequences1764940000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION reserve_thread_sequences(project_ids uuid[], thread_ids uuid[], counts integer[]) RETURNS integer[]
      LANGUAGE plpgsql AS $$
      DECLARE
        firsts integer[] := '{}';
        last integer;
      BEGIN
        FOR i IN 1 .. coalesce(array_length(thread_ids, 1), 0) LOOP
          last := NULL;
          UPDATE threads SET last_seq = last_seq + counts[i]
           WHERE project_id = project_ids[i] AND id = thread_ids[i] AND deleted_at IS NULL
          RETURNING last_seq INTO last;
          firsts := array_append(firsts, last - counts[i] + 1);
        END LOOP;
        RETURN firsts;
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION reserve_thread_sequences(uuid[], uuid[], integer[])');
  }
}
