import { MigrationInterface, QueryRunner } from 'typeorm';

import { newId } from '../../common/ids';

const DEFAULT_ENVIRONMENTS = ['preview', 'staging', 'production'];

/**
 * The registry: environments, prompts (and assistants), their immutable versions, deployments with
 * their history, and provider credentials. Like the Foundation tables, every table keys on
 * (project_id, id) and every lookup index starts with project_id (distributable by project).
 */
export class Registry1763900000000 implements MigrationInterface {
  name = 'Registry1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE environments (
        project_id uuid NOT NULL REFERENCES projects (id),
        id uuid NOT NULL,
        slug varchar(64) NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, id),
        CONSTRAINT environments_slug_key UNIQUE (project_id, slug)
      )`);
    // One slug namespace per project for both kinds: the invoke path cannot tell them apart otherwise.
    // last_version is the version counter; taking a number updates this row, which serializes
    // concurrent version creation (and deployments lock it too).
    await q.query(`
      CREATE TABLE prompts (
        project_id uuid NOT NULL REFERENCES projects (id),
        id uuid NOT NULL,
        slug varchar(64) NOT NULL,
        kind varchar(16) NOT NULL CHECK (kind IN ('prompt', 'assistant')),
        last_version integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, id),
        CONSTRAINT prompts_slug_key UNIQUE (project_id, slug)
      )`);
    await q.query(`
      CREATE TABLE prompt_versions (
        project_id uuid NOT NULL,
        id uuid NOT NULL,
        prompt_id uuid NOT NULL,
        version integer NOT NULL CHECK (version > 0),
        content_hash char(64) NOT NULL,
        template jsonb NOT NULL,
        provider varchar(64) NOT NULL,
        model varchar(200) NOT NULL,
        parameters jsonb NOT NULL DEFAULT '{}',
        tools jsonb NOT NULL DEFAULT '[]',
        variables jsonb NOT NULL DEFAULT '{}',
        declared_variables jsonb NOT NULL DEFAULT '[]',
        message varchar(500) NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, id),
        CONSTRAINT prompt_versions_prompt_fkey FOREIGN KEY (project_id, prompt_id) REFERENCES prompts (project_id, id),
        CONSTRAINT prompt_versions_version_key UNIQUE (project_id, prompt_id, version)
      )`);
    // apply reuses an existing version with the same content instead of adding a duplicate.
    await q.query(`CREATE INDEX prompt_versions_hash_idx ON prompt_versions (project_id, prompt_id, content_hash)`);
    // History rows stay with replaced_at set; at most one current row per prompt and environment.
    await q.query(`
      CREATE TABLE deployments (
        project_id uuid NOT NULL,
        id uuid NOT NULL,
        prompt_id uuid NOT NULL,
        environment_id uuid NOT NULL,
        version_id uuid NOT NULL,
        deployment_version integer NOT NULL CHECK (deployment_version > 0),
        deployed_at timestamptz NOT NULL,
        replaced_at timestamptz NULL,
        PRIMARY KEY (project_id, id),
        CONSTRAINT deployments_prompt_fkey FOREIGN KEY (project_id, prompt_id) REFERENCES prompts (project_id, id),
        CONSTRAINT deployments_environment_fkey FOREIGN KEY (project_id, environment_id) REFERENCES environments (project_id, id),
        CONSTRAINT deployments_version_fkey FOREIGN KEY (project_id, version_id) REFERENCES prompt_versions (project_id, id),
        CONSTRAINT deployments_sequence_key UNIQUE (project_id, prompt_id, environment_id, deployment_version)
      )`);
    await q.query(`
      CREATE UNIQUE INDEX deployments_current_key ON deployments (project_id, prompt_id, environment_id)
       WHERE replaced_at IS NULL`);
    await q.query(`CREATE INDEX deployments_current_env_idx ON deployments (project_id, environment_id) WHERE replaced_at IS NULL`);
    // api_key_ciphertext: AES-256-GCM under PARLEY_SECRET_KEY; the plaintext key is never stored.
    await q.query(`
      CREATE TABLE provider_credentials (
        project_id uuid NOT NULL REFERENCES projects (id),
        id uuid NOT NULL,
        name varchar(64) NOT NULL,
        type varchar(16) NOT NULL CHECK (type IN ('openai', 'anthropic')),
        base_url varchar(2000) NULL,
        api_key_env varchar(200) NULL,
        api_key_ciphertext text NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, id),
        CONSTRAINT provider_credentials_name_key UNIQUE (project_id, name),
        CONSTRAINT provider_credentials_one_key CHECK (api_key_env IS NULL OR api_key_ciphertext IS NULL)
      )`);
    // Projects created before this migration get the default environments new projects get.
    const projects: { id: string }[] = await q.query('SELECT id FROM projects');
    for (const project of projects) {
      for (const slug of DEFAULT_ENVIRONMENTS) {
        await q.query('INSERT INTO environments (project_id, id, slug, created_at) VALUES ($1, $2, $3, now())', [
          project.id,
          newId(),
          slug,
        ]);
      }
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE provider_credentials');
    await q.query('DROP TABLE deployments');
    await q.query('DROP TABLE prompt_versions');
    await q.query('DROP TABLE prompts');
    await q.query('DROP TABLE environments');
  }
}
