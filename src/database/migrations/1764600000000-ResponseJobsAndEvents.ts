import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Durable and resumable responses (docs/openai-conversations.md, "Background responses and
 * resumable streams"): a response's status, its stored stream events (in batches, one row per
 * flush), and the job table instances claim with a lease.
 */
export class ResponseJobsAndEvents1764600000000 implements MigrationInterface {
  name = 'ResponseJobsAndEvents1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE responses
        ADD COLUMN status text NOT NULL DEFAULT 'completed',
        ADD COLUMN background boolean NOT NULL DEFAULT false,
        ADD COLUMN finished_at timestamptz NULL`);
    await q.query(`
      CREATE TABLE response_events (
        project_id uuid NOT NULL REFERENCES projects (id),
        id uuid NOT NULL,
        response_id uuid NOT NULL,
        first_sequence integer NOT NULL,
        last_sequence integer NOT NULL,
        events text NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, id)
      )`);
    // One writer per sequence number: a second writer (a takeover racing a stalled instance) fails.
    await q.query('CREATE UNIQUE INDEX response_events_sequence ON response_events (project_id, response_id, first_sequence)');
    await q.query('CREATE INDEX response_events_created ON response_events (created_at, project_id)');
    await q.query(`
      CREATE TABLE response_jobs (
        project_id uuid NOT NULL REFERENCES projects (id),
        id uuid NOT NULL,
        state text NOT NULL,
        background boolean NOT NULL,
        request jsonb NOT NULL,
        lease_owner text NULL,
        lease_expires_at timestamptz NULL,
        attempts integer NOT NULL DEFAULT 0,
        cancel_requested boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, id)
      )`);
    await q.query('CREATE INDEX response_jobs_claim ON response_jobs (state, created_at, project_id)');
    await q.query('CREATE INDEX response_jobs_lease ON response_jobs (lease_expires_at, project_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE response_jobs');
    await q.query('DROP TABLE response_events');
    await q.query('ALTER TABLE responses DROP COLUMN status, DROP COLUMN background, DROP COLUMN finished_at');
  }
}
