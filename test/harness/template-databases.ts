import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

import { Client } from 'pg';
import { DataSource } from 'typeorm';

import { loadAppConfig } from '../../src/config/app-config';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { runMigrations } from '../../src/database/migrate';
import { databaseUrlNamed } from './database-url';

/**
 * The databases a test run starts from, migrated once per run instead of once per test file
 * (docs/testing.md): a PGlite dump every in-memory test app loads, and on PostgreSQL one migrated
 * template database that every jest worker's database is copied from (CREATE DATABASE ... TEMPLATE).
 */
const ROOT = path.join(__dirname, '..', '..');
const MIGRATIONS_DIR = path.join(ROOT, 'src', 'database', 'migrations');

/** Changes whenever a migration or the PGlite version does, so a stale dump is never reused. */
function schemaFingerprint(): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(MIGRATIONS_DIR).sort()) hash.update(name).update(readFileSync(path.join(MIGRATIONS_DIR, name)));
  hash.update(readFileSync(path.join(ROOT, 'src', 'database', 'partitioned-schema.ts')));
  hash.update(readFileSync(path.join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json')));
  return hash.digest('hex').slice(0, 16);
}

/** A migrated PGlite data directory as a tar file, cached under node_modules/.cache by schema. */
export async function pgliteTemplate(): Promise<string> {
  const dir = path.join(ROOT, 'node_modules', '.cache', 'parley-test');
  const file = path.join(dir, `pglite-${schemaFingerprint()}.tar`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  const config = loadAppConfig({ DATA_DIR: 'memory://' });
  const dataSource = new DataSource(buildDataSourceOptions(config));
  await dataSource.initialize();
  try {
    await runMigrations(dataSource, true);
    const { getPGliteInstance } = await import('typeorm-pglite');
    const dump = await (await getPGliteInstance()).dumpDataDir('none');
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, file); // atomic: a concurrent run never reads half a dump
  } finally {
    await dataSource.destroy();
  }
  return file;
}

export const databaseNameOf = (url: string): string => decodeURIComponent(new URL(url).pathname.slice(1));

async function withAdmin<T>(base: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: base });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * On PostgreSQL: `<db>_tpl` migrated (in the run's SCHEMA_MODE), then `<db>_w1` … `<db>_wN` copied
 * from it, one per jest worker. Returns the names, for teardown.
 */
export async function postgresWorkerDatabases(base: string, workers: number): Promise<string[]> {
  const db = databaseNameOf(base);
  const template = `${db}_tpl`;
  const names = Array.from({ length: workers }, (_, i) => `${db}_w${i + 1}`);
  await withAdmin(base, async (admin) => {
    for (const name of [template, ...names]) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${template}"`);
  });
  const config = loadAppConfig({ ...process.env, DATABASE_URL: databaseUrlNamed(base, template) });
  const dataSource = new DataSource(buildDataSourceOptions(config));
  await dataSource.initialize();
  try {
    await runMigrations(dataSource, false, config.schemaMode);
  } finally {
    await dataSource.destroy();
  }
  await withAdmin(base, async (admin) => {
    for (const name of names) await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  });
  return [template, ...names];
}

export async function dropDatabases(base: string, names: string[]): Promise<void> {
  await withAdmin(base, async (admin) => {
    for (const name of names) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
}
