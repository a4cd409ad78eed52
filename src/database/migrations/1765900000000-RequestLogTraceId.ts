import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The W3C trace id of each call (GET /v2/logs?traceId=, docs/observability.md "Trace ids in request
 * logs"): the caller's traceparent's, or the trace of Parley's own spans while the export is on.
 * A nullable column without a default: adding it rewrites nothing, and a call without a trace
 * writes a null. The keyset index leads with project_id and pages by id like the other filters'
 * (docs/pagination-explain.md), and is partial: calls without a trace cost it nothing. Made on the
 * partitioned parent, so every partition, present or made later, has the column and the index.
 */
export class RequestLogTraceId1765900000000 implements MigrationInterface {
  name = 'RequestLogTraceId1765900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE request_logs ADD COLUMN trace_id varchar(32)');
    await q.query('CREATE INDEX request_logs_trace_idx ON request_logs (project_id, trace_id, id) WHERE trace_id IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX request_logs_trace_idx');
    await q.query('ALTER TABLE request_logs DROP COLUMN trace_id');
  }
}
