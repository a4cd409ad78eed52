import { MigrationInterface, QueryRunner } from 'typeorm';

import { maintainPartitions, monthStart, partitionName, uuidBoundOf } from '../log-partitions';

const INDEXES = ['slug', 'thread', 'status', 'metadata'];

/**
 * request_logs becomes a table partitioned by RANGE (id), a partition per month (UUIDv7 ids carry
 * their time; see src/database/log-partitions.ts and docs/operations.md). The existing table,
 * rows and all, is attached as the first partition, covering everything before next month: no row
 * is copied. The months after it are created here and kept ahead by the server.
 */
export class RequestLogPartitions1764150000000 implements MigrationInterface {
  name = 'RequestLogPartitions1764150000000';

  async up(q: QueryRunner): Promise<void> {
    const bound = monthStart(Date.now(), 1);
    const first = `request_logs_before_${partitionName(bound).slice('request_logs_'.length)}`;
    await q.query(`ALTER TABLE request_logs RENAME TO ${first}`);
    await q.query(`ALTER TABLE ${first} RENAME CONSTRAINT request_logs_pkey TO ${first}_pkey`);
    for (const index of INDEXES) await q.query(`ALTER INDEX request_logs_${index}_idx RENAME TO ${first}_${index}_idx`);

    await q.query(`CREATE TABLE request_logs (LIKE ${first} INCLUDING DEFAULTS) PARTITION BY RANGE (id)`);
    await q.query(`ALTER TABLE request_logs ADD CONSTRAINT request_logs_pkey PRIMARY KEY (project_id, id)`);
    await q.query(`ALTER TABLE request_logs ADD CONSTRAINT request_logs_project_fkey FOREIGN KEY (project_id) REFERENCES projects (id)`);
    // GET /v2/logs filters; every one leads with project_id and pages by id (UUIDv7, newest first).
    await q.query(`CREATE INDEX request_logs_slug_idx ON request_logs (project_id, prompt_slug, id)`);
    await q.query(`CREATE INDEX request_logs_thread_idx ON request_logs (project_id, thread_id, id) WHERE thread_id IS NOT NULL`);
    await q.query(`CREATE INDEX request_logs_status_idx ON request_logs (project_id, status, id)`);
    await q.query(`CREATE INDEX request_logs_metadata_idx ON request_logs USING gin (metadata jsonb_path_ops)`);
    // Validated by one scan; the partition's own indexes become the parent indexes' partitions.
    await q.query(`ALTER TABLE request_logs ATTACH PARTITION ${first} FOR VALUES FROM (MINVALUE) TO ('${uuidBoundOf(bound)}')`);
    await maintainPartitions((work) => work(q), Date.now(), undefined);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE request_logs_plain (LIKE request_logs INCLUDING DEFAULTS)`);
    await q.query(`INSERT INTO request_logs_plain SELECT * FROM request_logs`);
    await q.query(`DROP TABLE request_logs`);
    await q.query(`ALTER TABLE request_logs_plain RENAME TO request_logs`);
    await q.query(`ALTER TABLE request_logs ADD CONSTRAINT request_logs_pkey PRIMARY KEY (project_id, id)`);
    await q.query(`ALTER TABLE request_logs ADD CONSTRAINT request_logs_project_id_fkey FOREIGN KEY (project_id) REFERENCES projects (id)`);
    await q.query(`CREATE INDEX request_logs_slug_idx ON request_logs (project_id, prompt_slug, id)`);
    await q.query(`CREATE INDEX request_logs_thread_idx ON request_logs (project_id, thread_id, id) WHERE thread_id IS NOT NULL`);
    await q.query(`CREATE INDEX request_logs_status_idx ON request_logs (project_id, status, id)`);
    await q.query(`CREATE INDEX request_logs_metadata_idx ON request_logs USING gin (metadata jsonb_path_ops)`);
  }
}
