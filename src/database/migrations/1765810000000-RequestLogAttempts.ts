import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A routed call's attempts on its request log (docs/routing.md, "Every attempt recorded"): null
 * for a call without routing. On a partitioned request_logs the column reaches every partition.
 */
export class RequestLogAttempts1765810000000 implements MigrationInterface {
  name = 'RequestLogAttempts1765810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE request_logs ADD COLUMN attempts jsonb');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE request_logs DROP COLUMN attempts');
  }
}
