import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Feedback on calls (docs/experiments.md, "Feedback"): one row per target (a request log, a thread
 * or a stored response), name and source, replaced when sent again; and its rollup per prompt,
 * environment, version and name (count, sum and sum of squares of the numbers and booleans, counts
 * per category), kept in the same transaction, which per-arm results read instead of the rows.
 * A stored response names its request log (`responses.log_id`), so feedback on a response finds the
 * version that served it; responses stored before this have none.
 */
export class Feedback1765200000000 implements MigrationInterface {
  name = 'Feedback1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE responses ADD COLUMN log_id uuid NULL');
    await q.query(`
      CREATE TABLE feedback (
        project_id uuid NOT NULL REFERENCES projects (id),
        id uuid NOT NULL,
        target_type text NOT NULL,
        target_id uuid NOT NULL,
        log_id uuid NULL,
        thread_id uuid NULL,
        response_id uuid NULL,
        prompt_slug text NULL,
        environment text NULL,
        version integer NULL,
        name text NOT NULL,
        value_kind text NOT NULL,
        value_number numeric NULL,
        value_text text NULL,
        comment text NULL,
        source text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, id),
        CONSTRAINT feedback_target_type CHECK (target_type IN ('log', 'thread', 'response')),
        CONSTRAINT feedback_value CHECK (
          (value_kind IN ('number', 'boolean') AND value_number IS NOT NULL AND value_text IS NULL)
          OR (value_kind = 'category' AND value_text IS NOT NULL AND value_number IS NULL))
      )`);
    // One feedback per target, name and source: sending it again replaces it.
    await q.query('CREATE UNIQUE INDEX feedback_target_name_source ON feedback (project_id, target_type, target_id, name, source)');
    // The list's filters, newest first (ids are time-ordered).
    await q.query('CREATE INDEX feedback_log ON feedback (project_id, log_id, id) WHERE log_id IS NOT NULL');
    await q.query('CREATE INDEX feedback_thread ON feedback (project_id, thread_id, id) WHERE thread_id IS NOT NULL');
    await q.query('CREATE INDEX feedback_response ON feedback (project_id, response_id, id) WHERE response_id IS NOT NULL');
    await q.query('CREATE INDEX feedback_prompt ON feedback (project_id, prompt_slug, id) WHERE prompt_slug IS NOT NULL');
    await q.query(`
      CREATE TABLE feedback_rollups (
        project_id uuid NOT NULL REFERENCES projects (id),
        prompt_slug text NOT NULL,
        environment text NOT NULL,
        version integer NOT NULL,
        name text NOT NULL,
        total integer NOT NULL,
        numbers integer NOT NULL,
        booleans integer NOT NULL,
        value_sum numeric NOT NULL,
        value_sum_squares numeric NOT NULL,
        categories jsonb NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, prompt_slug, environment, version, name)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE feedback_rollups');
    await q.query('DROP TABLE feedback');
    await q.query('ALTER TABLE responses DROP COLUMN log_id');
  }
}
