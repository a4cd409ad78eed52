import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { Client } from 'pg';

export interface FreshDatabase {
  /** What to give the application: DATABASE_URL of a new database, or DATA_DIR of a new PGlite directory. */
  env: { DATABASE_URL: string } | { DATA_DIR: string };
  drop: () => Promise<void>;
}

export interface FreshDatabaseOptions {
  /**
   * Start from the run's migrated template (test/harness) instead of an empty database: the schema
   * is there and the application only finds no rows. A server process then skips PGlite's initdb
   * and the migrations (15–30 s for a data directory on this machine under load, against a few s).
   */
  migrated?: boolean;
}

/**
 * A database of its own, on the engine the suite runs on: a new PostgreSQL database beside
 * DATABASE_URL's, or a new PGlite data directory. Empty unless `migrated`; for tests that must own
 * the whole schema (migrations, partitions) or a server process of their own.
 */
export async function freshDatabase(options: FreshDatabaseOptions = {}): Promise<FreshDatabase> {
  const base = process.env.PARLEY_TEST_BASE_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!base) {
    const dir = mkdtempSync(path.join(tmpdir(), 'parley-fresh-'));
    if (options.migrated) await writeMigratedDataDir(dir);
    return { env: { DATA_DIR: dir }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `parley_fresh_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  // The harness's template database is the first of the run's databases (test/harness/global-setup.ts).
  const template = options.migrated ? process.env.PARLEY_TEST_WORKER_DATABASES?.split(',')[0] : undefined;
  const admin = new Client({ connectionString: base });
  await admin.connect();
  await admin.query(template ? `CREATE DATABASE ${name} TEMPLATE "${template}"` : `CREATE DATABASE ${name}`);
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

/**
 * A PGlite DATA_DIR whose `pgdata` (where the application keeps it, src/database) holds the run's
 * migrated dump: PGlite unpacks the dump into the new directory and closes.
 */
export async function writeMigratedDataDir(dataDir: string): Promise<void> {
  const dump = process.env.PARLEY_TEST_PGLITE_TEMPLATE;
  if (!dump) return; // run outside the harness: the application migrates the empty directory itself
  mkdirSync(dataDir, { recursive: true });
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create({ dataDir: path.join(dataDir, 'pgdata'), loadDataDir: new Blob([readFileSync(dump)]) });
  await db.close();
}

/** One statement on a PostgreSQL fresh database, on a client of its own (while a server runs on it or not). */
export async function queryFresh<T>(fresh: FreshDatabase, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: (fresh.env as { DATABASE_URL: string }).DATABASE_URL });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}
