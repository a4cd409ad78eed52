import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Budgets in USD per UTC day and month beside the other limits of a subject (docs/usage.md,
 * "Budgets"). What was spent is counted in limit_counters, in nano-USD, like the other limits.
 */
export class Budgets1764900000000 implements MigrationInterface {
  name = 'Budgets1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE limit_settings ADD COLUMN budget_usd_per_day numeric NULL, ADD COLUMN budget_usd_per_month numeric NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE limit_settings DROP COLUMN budget_usd_per_day, DROP COLUMN budget_usd_per_month`);
  }
}
