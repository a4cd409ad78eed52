import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks per project for background responses' final events, and their deliveries (an outbox
 * written in the same transaction as the response's end; docs/openai-conversations.md, "Webhooks").
 */
export class Webhooks1764600000001 implements MigrationInterface {
  name = 'Webhooks1764600000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhooks (
        project_id uuid NOT NULL REFERENCES projects (id),
        id uuid NOT NULL,
        url text NOT NULL,
        events jsonb NOT NULL,
        secret text NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, id)
      )`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        project_id uuid NOT NULL REFERENCES projects (id),
        id uuid NOT NULL,
        webhook_id uuid NOT NULL,
        type text NOT NULL,
        payload text NOT NULL,
        state text NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        last_status integer NULL,
        last_error text NULL,
        created_at timestamptz NOT NULL,
        delivered_at timestamptz NULL,
        PRIMARY KEY (project_id, id)
      )`);
    await q.query('CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at, project_id)');
    await q.query('CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (project_id, webhook_id, id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE webhook_deliveries');
    await q.query('DROP TABLE webhooks');
  }
}
