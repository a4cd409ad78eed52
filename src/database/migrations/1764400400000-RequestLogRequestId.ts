import { MigrationInterface, QueryRunner } from 'typeorm';

/** The X-Request-Id of each invoke, stored with its request log (GET /v2/logs?requestId=). */
export class RequestLogRequestId1764400400000 implements MigrationInterface {
  name = 'RequestLogRequestId1764400400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE request_logs ADD COLUMN request_id varchar(128) NULL');
    await q.query('CREATE INDEX request_logs_request_id_idx ON request_logs (project_id, request_id) WHERE request_id IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX request_logs_request_id_idx');
    await q.query('ALTER TABLE request_logs DROP COLUMN request_id');
  }
}
