import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Live graders (docs/experiments.md, "Live graders"): the project setting that names the graders
 * scoring a share of its live calls, `[{grader, share, prompt?, environment?}]`. Their work is a
 * `live_grade` job on the one job queue (response_jobs), whose `kind` is free text: no change there.
 */
export class LiveGraders1765500000000 implements MigrationInterface {
  name = 'LiveGraders1765500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE project_settings ADD COLUMN live_graders jsonb NOT NULL DEFAULT '[]'::jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE project_settings DROP COLUMN live_graders');
  }
}
