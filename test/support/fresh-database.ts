import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';

export interface FreshDatabase {
  /** What to give the application: DATABASE_URL of a new database, or DATA_DIR of a new PGlite directory. */
  env: { DATABASE_URL: string } | { DATA_DIR: string };
  drop: () => Promise<void>;
}

/**
 * An empty database of its own, on the engine the suite runs on: a new PostgreSQL database beside
 * DATABASE_URL's, or a new PGlite data directory. For tests that must own the whole schema
 * (migrations, partitions, a server process of their own).
 */
export async function freshDatabase(): Promise<FreshDatabase> {
  const base = process.env.DATABASE_URL;
  if (!base) {
    const dir = mkdtempSync(path.join(tmpdir(), 'parley-fresh-'));
    return { env: { DATA_DIR: dir }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `parley_fresh_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString() },
    drop: async () => {
      const c = new Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
