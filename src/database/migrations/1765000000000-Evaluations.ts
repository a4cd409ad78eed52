import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Evaluations (docs/evals.md): versioned datasets, named graders, experiment runs with one row per
 * graded item and per-grader totals, and a deploy gate per environment. Experiment runs are jobs of
 * the one job queue (response_jobs), told apart by `kind`.
 */
export class Evaluations1765000000000 implements MigrationInterface {
  name = 'Evaluations1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE response_jobs ADD COLUMN kind text NOT NULL DEFAULT 'response'`);
    await q.query('DROP INDEX response_jobs_claim');
    await q.query('CREATE INDEX response_jobs_claim ON response_jobs (kind, state, created_at, project_id)');
    await q.query(`
      CREATE TABLE datasets (
        project_id uuid NOT NULL REFERENCES projects (id),
        id uuid NOT NULL,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        version integer NOT NULL DEFAULT 0,
        item_count integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, id),
        UNIQUE (project_id, name)
      )`);
    await q.query(`
      CREATE TABLE dataset_versions (
        project_id uuid NOT NULL,
        dataset_id uuid NOT NULL,
        version integer NOT NULL,
        item_count integer NOT NULL,
        change text NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, dataset_id, version)
      )`);
    // An item's revisions: live in versions [since_version, until_version). Edits close a revision and open the next.
    await q.query(`
      CREATE TABLE dataset_items (
        project_id uuid NOT NULL,
        dataset_id uuid NOT NULL,
        id uuid NOT NULL,
        since_version integer NOT NULL,
        until_version integer NULL,
        variables jsonb NOT NULL,
        messages jsonb NOT NULL,
        expected jsonb NULL,
        metadata jsonb NOT NULL,
        source jsonb NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, dataset_id, id, since_version)
      )`);
    await q.query('CREATE INDEX dataset_items_live ON dataset_items (project_id, dataset_id, id) WHERE until_version IS NULL');
    await q.query(`
      CREATE TABLE graders (
        project_id uuid NOT NULL REFERENCES projects (id),
        id uuid NOT NULL,
        name text NOT NULL,
        type text NOT NULL,
        config jsonb NOT NULL,
        threshold double precision NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, id),
        UNIQUE (project_id, name)
      )`);
    await q.query(`
      CREATE TABLE eval_runs (
        project_id uuid NOT NULL REFERENCES projects (id),
        id uuid NOT NULL,
        name text NOT NULL,
        status text NOT NULL,
        dataset_id uuid NOT NULL,
        dataset_name text NOT NULL,
        dataset_version integer NOT NULL,
        target jsonb NOT NULL,
        prompt_id uuid NULL,
        prompt_version_id uuid NULL,
        graders jsonb NOT NULL,
        concurrency integer NOT NULL,
        total_items integer NOT NULL,
        completed_items integer NOT NULL DEFAULT 0,
        errored_items integer NOT NULL DEFAULT 0,
        passed_items integer NOT NULL DEFAULT 0,
        prompt_tokens bigint NOT NULL DEFAULT 0,
        completion_tokens bigint NOT NULL DEFAULT 0,
        cost_usd numeric NOT NULL DEFAULT 0,
        latency_ms_sum bigint NOT NULL DEFAULT 0,
        error text NULL,
        created_by jsonb NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL,
        started_at timestamptz NULL,
        finished_at timestamptz NULL,
        PRIMARY KEY (project_id, id)
      )`);
    await q.query(`CREATE INDEX eval_runs_gate ON eval_runs (project_id, prompt_version_id, dataset_id) WHERE status = 'completed'`);
    await q.query(`
      CREATE TABLE eval_run_items (
        project_id uuid NOT NULL,
        run_id uuid NOT NULL,
        item_id uuid NOT NULL,
        status text NOT NULL,
        output jsonb NULL,
        scores jsonb NOT NULL,
        passed boolean NOT NULL,
        score double precision NOT NULL,
        error text NULL,
        log_id uuid NULL,
        prompt_tokens integer NULL,
        completion_tokens integer NULL,
        cost_usd numeric NULL,
        latency_ms integer NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, run_id, item_id)
      )`);
    await q.query(`
      CREATE TABLE eval_run_grader_totals (
        project_id uuid NOT NULL,
        run_id uuid NOT NULL,
        grader text NOT NULL,
        graded integer NOT NULL,
        passed integer NOT NULL,
        score_sum double precision NOT NULL,
        PRIMARY KEY (project_id, run_id, grader)
      )`);
    await q.query(`
      CREATE TABLE environment_gates (
        project_id uuid NOT NULL,
        environment_id uuid NOT NULL,
        dataset_id uuid NOT NULL,
        min_scores jsonb NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, environment_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'environment_gates',
      'eval_run_grader_totals',
      'eval_run_items',
      'eval_runs',
      'graders',
      'dataset_items',
      'dataset_versions',
      'datasets',
    ])
      await q.query(`DROP TABLE ${table}`);
    await q.query('DROP INDEX response_jobs_claim');
    await q.query('CREATE INDEX response_jobs_claim ON response_jobs (state, created_at, project_id)');
    await q.query('ALTER TABLE response_jobs DROP COLUMN kind');
  }
}
