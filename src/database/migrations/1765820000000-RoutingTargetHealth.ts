import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Routing targets cooling down (docs/routing.md, "Health"): one row per (project, provider, model)
 * that tripped, written once per cooldown and deleted when a probe succeeds; every instance reads
 * them at start and after a gap in the change notifications. `trips` is the cooldown's rank in a
 * series of trips (its length doubles with each); `failures` and `reason` say what tripped it.
 */
export class RoutingTargetHealth1765820000000 implements MigrationInterface {
  name = 'RoutingTargetHealth1765820000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE routing_target_health (
        project_id uuid NOT NULL REFERENCES projects (id),
        provider varchar NOT NULL,
        model varchar NOT NULL,
        cooldown_until timestamptz NOT NULL,
        trips integer NOT NULL,
        failures integer NOT NULL,
        reason varchar NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (project_id, provider, model)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE routing_target_health');
  }
}
