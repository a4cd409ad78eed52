import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * People (docs/security.md, "Sign-in", "Roles", "SCIM", "Approvals"): users who sign in with
 * OpenID Connect, their roles in workspaces and projects, the groups that map to roles, SCIM's
 * tokens and records, protected environments with their deployment requests, and an audit trail
 * that names people, with one for the instance's own events.
 */
export class People1765910000000 implements MigrationInterface {
  name = 'People1765910000000';

  async up(q: QueryRunner): Promise<void> {
    // A person, instance-wide. oidc_* are set at the first sign-in (SCIM may create the row first).
    await q.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY,
        email varchar(320) NOT NULL,
        name varchar(200) NULL,
        oidc_issuer varchar(500) NULL,
        oidc_subject varchar(255) NULL,
        instance_admin boolean NOT NULL DEFAULT false,
        active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL,
        last_sign_in_at timestamptz NULL
      )`);
    await q.query('CREATE UNIQUE INDEX users_email_idx ON users (lower(email))');
    await q.query('CREATE UNIQUE INDEX users_oidc_idx ON users (oidc_issuer, oidc_subject) WHERE oidc_subject IS NOT NULL');

    // A role given to a user directly: in a whole workspace (project_id null) or in one project.
    await q.query(`
      CREATE TABLE memberships (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        workspace_id uuid NOT NULL REFERENCES workspaces (id),
        project_id uuid NULL REFERENCES projects (id),
        role varchar(16) NOT NULL CHECK (role IN ('viewer', 'editor', 'deployer', 'admin')),
        created_at timestamptz NOT NULL
      )`);
    await q.query(
      "CREATE UNIQUE INDEX memberships_place_idx ON memberships (user_id, workspace_id, COALESCE(project_id, '00000000-0000-0000-0000-000000000000'))",
    );
    await q.query('CREATE INDEX memberships_workspace_idx ON memberships (workspace_id, project_id)');

    // The groups claim of the user's last sign-in, as the identity provider sent it.
    await q.query(`
      CREATE TABLE user_claim_groups (
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name varchar(200) NOT NULL,
        PRIMARY KEY (user_id, name)
      )`);
    // Who is in a group, by name: the members list and the sessions ended when a group role goes.
    await q.query('CREATE INDEX user_claim_groups_name_idx ON user_claim_groups (name)');

    // A role given to everyone in a group (by name: the claim's value or a SCIM group's displayName).
    await q.query(`
      CREATE TABLE group_roles (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces (id),
        project_id uuid NULL REFERENCES projects (id),
        group_name varchar(200) NOT NULL,
        role varchar(16) NOT NULL CHECK (role IN ('viewer', 'editor', 'deployer', 'admin')),
        created_at timestamptz NOT NULL
      )`);
    await q.query(
      "CREATE UNIQUE INDEX group_roles_place_idx ON group_roles (workspace_id, COALESCE(project_id, '00000000-0000-0000-0000-000000000000'), group_name)",
    );
    await q.query('CREATE INDEX group_roles_name_idx ON group_roles (group_name)');

    // SCIM: bearer tokens per workspace (stored hashed), the users and groups a workspace's directory provisioned.
    await q.query(`
      CREATE TABLE scim_tokens (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces (id),
        name varchar(200) NOT NULL,
        token_hash char(64) NOT NULL UNIQUE,
        token_prefix varchar(16) NOT NULL,
        created_at timestamptz NOT NULL,
        last_used_at timestamptz NULL,
        revoked_at timestamptz NULL
      )`);
    // active false: the directory deactivated the user; their roles in this workspace are suspended.
    await q.query(`
      CREATE TABLE scim_users (
        workspace_id uuid NOT NULL REFERENCES workspaces (id),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        external_id varchar(255) NULL,
        user_name varchar(320) NOT NULL,
        active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (workspace_id, user_id)
      )`);
    await q.query('CREATE INDEX scim_users_user_idx ON scim_users (user_id)');
    await q.query(`
      CREATE TABLE scim_groups (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces (id),
        display_name varchar(200) NOT NULL,
        external_id varchar(255) NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await q.query('CREATE UNIQUE INDEX scim_groups_name_idx ON scim_groups (workspace_id, lower(display_name))');
    await q.query(`
      CREATE TABLE scim_group_members (
        group_id uuid NOT NULL REFERENCES scim_groups (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        PRIMARY KEY (group_id, user_id)
      )`);
    await q.query('CREATE INDEX scim_group_members_user_idx ON scim_group_members (user_id)');

    // A console session stands for a key (key_id) or, with kind 'user', for a person.
    await q.query('ALTER TABLE console_sessions ADD COLUMN user_id uuid NULL');
    await q.query('CREATE INDEX console_sessions_user_idx ON console_sessions (user_id) WHERE user_id IS NOT NULL');

    // Protected environments: deploys and rollbacks wait for a second person; keys may be barred.
    await q.query('ALTER TABLE environments ADD COLUMN requires_approval boolean NOT NULL DEFAULT false');
    await q.query('ALTER TABLE environments ADD COLUMN bars_keys boolean NOT NULL DEFAULT false');
    await q.query(`
      CREATE TABLE deployment_requests (
        project_id uuid NOT NULL REFERENCES projects (id),
        id uuid NOT NULL,
        prompt_id uuid NOT NULL,
        environment_id uuid NOT NULL,
        request jsonb NOT NULL,
        status varchar(16) NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'cancelled')),
        requested_by_user_id uuid NULL,
        requested_by_key_id uuid NULL,
        requested_by_name varchar(320) NULL,
        decided_by_user_id uuid NULL,
        decided_by_name varchar(320) NULL,
        decided_at timestamptz NULL,
        comment varchar(2000) NULL,
        deployment_id uuid NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, id)
      )`);
    await q.query('CREATE INDEX deployment_requests_status_idx ON deployment_requests (project_id, status, id)');

    // The audit trail names the person behind a change made from a user's session.
    await q.query('ALTER TABLE audit_events ADD COLUMN actor_user_id uuid NULL');
    await q.query('ALTER TABLE audit_events ADD COLUMN actor_user_email varchar(320) NULL');
    // Events above any one project: workspaces, projects, workspace admin keys, members, sign-ins, SCIM.
    await q.query(`
      CREATE TABLE instance_audit_events (
        id uuid PRIMARY KEY,
        workspace_id uuid NULL,
        created_at timestamptz NOT NULL,
        actor_kind varchar(16) NOT NULL,
        actor_key_id uuid NULL,
        actor_key_name varchar(200) NULL,
        actor_user_id uuid NULL,
        actor_user_email varchar(320) NULL,
        action varchar(64) NOT NULL,
        resource_type varchar(32) NOT NULL,
        resource_id varchar(320) NOT NULL,
        before jsonb NULL,
        after jsonb NULL,
        request_id varchar(128) NULL,
        client_address varchar(64) NULL
      )`);
    await q.query('CREATE INDEX instance_audit_events_workspace_idx ON instance_audit_events (workspace_id, id)');
    await q.query('CREATE INDEX instance_audit_events_created_idx ON instance_audit_events (created_at)');

    // Deploying becomes a scope of its own; keys that could deploy (registry:write) keep deploying.
    await q.query(`UPDATE api_keys SET scopes = scopes || '["deploy"]'::jsonb WHERE scopes @> '["registry:write"]'::jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE api_keys SET scopes = scopes - 'deploy' WHERE scopes IS NOT NULL`);
    await q.query('DROP TABLE instance_audit_events');
    await q.query('ALTER TABLE audit_events DROP COLUMN actor_user_email');
    await q.query('ALTER TABLE audit_events DROP COLUMN actor_user_id');
    await q.query('DROP TABLE deployment_requests');
    await q.query('ALTER TABLE environments DROP COLUMN bars_keys');
    await q.query('ALTER TABLE environments DROP COLUMN requires_approval');
    await q.query('DROP INDEX console_sessions_user_idx');
    await q.query('ALTER TABLE console_sessions DROP COLUMN user_id');
    await q.query('DROP TABLE scim_group_members');
    await q.query('DROP TABLE scim_groups');
    await q.query('DROP TABLE scim_users');
    await q.query('DROP TABLE scim_tokens');
    await q.query('DROP TABLE group_roles');
    await q.query('DROP TABLE user_claim_groups');
    await q.query('DROP TABLE memberships');
    await q.query('DROP TABLE users');
  }
}
