import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OpenAI's Evals API over the evaluations (docs/evals.md, "OpenAI's Evals API"): an eval's
 * definition (its item schema and testing criteria), and each OpenAI run's link to the experiment
 * run (eval_runs) and the dataset of its items that it was made of. Ids are OpenAI's
 * (`eval_<32 hex>`, `evalrun_<32 hex>`), time-ordered, so a page is a keyset range of the key.
 */
export class OpenAIEvals1765000100000 implements MigrationInterface {
  name = 'OpenAIEvals1765000100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE openai_evals (
        project_id uuid NOT NULL REFERENCES projects (id),
        id text NOT NULL,
        name text NOT NULL,
        data_source_config jsonb NOT NULL,
        testing_criteria jsonb NOT NULL,
        metadata jsonb NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, id)
      )`);
    await q.query('CREATE INDEX openai_evals_updated ON openai_evals (project_id, updated_at, id)');
    await q.query(`
      CREATE TABLE openai_eval_runs (
        project_id uuid NOT NULL REFERENCES projects (id),
        id text NOT NULL,
        eval_id text NOT NULL,
        run_id uuid NOT NULL,
        dataset_id uuid NOT NULL,
        data_source jsonb NOT NULL,
        model text NULL,
        metadata jsonb NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, id)
      )`);
    await q.query('CREATE INDEX openai_eval_runs_of_eval ON openai_eval_runs (project_id, eval_id, id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE openai_eval_runs');
    await q.query('DROP TABLE openai_evals');
  }
}
