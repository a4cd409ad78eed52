import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The console's server-side sessions (docs/console.md, "Sessions"): a random token stored as its
 * SHA-256 hash, the key it was made from, an expiry and a revocation time, so every instance
 * accepts a session another made and a sign-out ends it everywhere. Looked up by hash before any
 * project is known, like api_keys: a reference table (partitioned-schema.ts).
 */
export class ConsoleSessions1764800000000 implements MigrationInterface {
  name = 'ConsoleSessions1764800000000';

  async up(q: QueryRunner): Promise<void> {
    // key_id is null for the admin key from PARLEY_ADMIN_KEY, which has no row in api_keys.
    await q.query(`
      CREATE TABLE console_sessions (
        id uuid PRIMARY KEY,
        token_hash char(64) NOT NULL UNIQUE,
        kind varchar(16) NOT NULL,
        key_id uuid NULL,
        project_id uuid NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz NULL
      )`);
    // Sign-in deletes sessions long expired: WHERE expires_at < $1.
    await q.query('CREATE INDEX console_sessions_expires_idx ON console_sessions (expires_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE console_sessions');
  }
}
