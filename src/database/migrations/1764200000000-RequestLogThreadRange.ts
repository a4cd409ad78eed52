import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An assistant's request log stores the provider request without the thread history it sent and
 * this reference to the thread's turns instead (src/request-logs/thread-range.ts): log storage
 * grows linearly with a thread's turns, not quadratically. Existing logs keep their full copy.
 */
export class RequestLogThreadRange1764200000000 implements MigrationInterface {
  name = 'RequestLogThreadRange1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE request_logs ADD COLUMN thread_range jsonb NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE request_logs DROP COLUMN thread_range');
  }
}
