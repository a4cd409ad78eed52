import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stored responses of POST /v1/responses (`store` true): the Response answered, this turn's input
 * and output as chat messages (what `previous_response_id` chains on), and the links. The call's
 * request log is written by the invocation core as for every call. See docs/openai-conversations.md.
 */
export class Responses1764250000000 implements MigrationInterface {
  name = 'Responses1764250000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE responses (
        project_id uuid NOT NULL REFERENCES projects (id),
        id uuid NOT NULL,
        previous_response_id uuid NULL,
        conversation_id uuid NULL,
        input jsonb NOT NULL,
        output jsonb NOT NULL,
        body jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        deleted_at timestamptz NULL,
        PRIMARY KEY (project_id, id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE responses');
  }
}
