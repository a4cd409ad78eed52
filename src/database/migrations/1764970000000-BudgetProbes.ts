import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A cold key's first call across every instance (docs/usage.md, "Budgets"): the row is the lease
 * of the one call that runs before the key's cost is known, then the cost it measured, which the
 * other instances reserve from their first call on. `expires_at` ends a lease whose instance died
 * and, once the cost is written, makes a key unused for a day probe again.
 */
export class BudgetProbes1764970000000 implements MigrationInterface {
  name = 'BudgetProbes1764970000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE limit_budget_probes (
        project_id uuid NOT NULL,
        key_id varchar(80) NOT NULL,
        holder uuid NOT NULL,
        cost_nano bigint,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, key_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE limit_budget_probes');
  }
}
