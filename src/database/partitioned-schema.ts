import { EntityManager } from 'typeorm';

/** Hash partitions per project-scoped table in SCHEMA_MODE=partitioned (Citus would make these shards). */
export const HASH_PARTITIONS = 8;
export const DISTRIBUTION_COLUMN = 'project_id';
/**
 * Plain tables (Citus: reference tables), though some have a project_id: API keys and console
 * sessions are looked up by hash before any project is known, and admin keys have none.
 */
export const REFERENCE_TABLES = ['workspaces', 'projects', 'api_keys', 'console_sessions'];

interface ConstraintRow {
  table: string;
  name: string;
  type: string;
  definition: string;
  columns: string[];
}

/**
 * SCHEMA_MODE=partitioned (docs/scaling.md): after the migrations, every project-scoped table that
 * is still a plain table — one with a NOT NULL project_id, not a reference table and not a
 * partition — is rebuilt as a table HASH-partitioned by project_id, with the same columns,
 * defaults, constraints, indexes and foreign keys (both directions). PostgreSQL then refuses any
 * primary key or unique index that lacks project_id, which is the rule Citus imposes on a table
 * distributed by project_id; `checkDistributable` checks the foreign keys too. Tables already
 * partitioned another way (request_logs, by time) are kept as they are and checked by the same rule.
 * Runs in the caller's transaction; idempotent (a later migration's new table is converted at the
 * next start).
 */
export async function partitionProjectTables(manager: EntityManager): Promise<string[]> {
  const tables = (
    await manager.query(
      `SELECT c.relname AS name
         FROM pg_class c
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = $1 AND a.attnotnull AND NOT a.attisdropped
        WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND NOT c.relispartition
          AND c.relname <> ALL ($2)
        ORDER BY c.relname`,
      [DISTRIBUTION_COLUMN, REFERENCE_TABLES],
    )
  ).map((row: { name: string }) => row.name);
  if (tables.length === 0) return [];

  // Foreign keys from or to the tables being rebuilt go first and come back last.
  const foreignKeys = (await constraintsOf(manager)).filter((c) => c.type === 'f' && (tables.includes(c.table) || references(c, tables)));
  for (const fk of foreignKeys) await manager.query(`ALTER TABLE ${quote(fk.table)} DROP CONSTRAINT ${quote(fk.name)}`);

  for (const table of tables) await rebuildPartitioned(manager, table);

  for (const fk of foreignKeys) await manager.query(`ALTER TABLE ${quote(fk.table)} ADD CONSTRAINT ${quote(fk.name)} ${fk.definition}`);
  return tables;
}

async function rebuildPartitioned(manager: EntityManager, table: string): Promise<void> {
  const constraints = (await constraintsOf(manager)).filter((c) => c.table === table && ['p', 'u', 'c', 'x'].includes(c.type));
  const indexes: { definition: string }[] = await manager.query(
    `SELECT pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i
      WHERE i.indrelid = $1::regclass
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)`,
    [quote(table)],
  );
  const staging = quote(`${table}__partitioned`);
  await manager.query(
    `CREATE TABLE ${staging} (LIKE ${quote(table)} INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING IDENTITY INCLUDING STORAGE INCLUDING COMMENTS)
     PARTITION BY HASH (${DISTRIBUTION_COLUMN})`,
  );
  for (let remainder = 0; remainder < HASH_PARTITIONS; remainder++) {
    await manager.query(
      `CREATE TABLE ${quote(`${table}_p${remainder}`)} PARTITION OF ${staging} FOR VALUES WITH (MODULUS ${HASH_PARTITIONS}, REMAINDER ${remainder})`,
    );
  }
  await manager.query(`INSERT INTO ${staging} SELECT * FROM ${quote(table)}`);
  await manager.query(`DROP TABLE ${quote(table)}`);
  await manager.query(`ALTER TABLE ${staging} RENAME TO ${quote(table)}`);
  for (const c of constraints) await manager.query(`ALTER TABLE ${quote(table)} ADD CONSTRAINT ${quote(c.name)} ${c.definition}`);
  for (const index of indexes) await manager.query(index.definition);
}

/**
 * The rule a schema distributed by project_id must follow: on every project-scoped table, every
 * primary key, unique constraint, unique index and foreign key includes project_id (a foreign key
 * to a reference table excepted: Citus allows those). Returns the violations, empty when none.
 */
export async function checkDistributable(manager: EntityManager): Promise<string[]> {
  const scoped: string[] = (
    await manager.query(
      `SELECT c.relname AS name
         FROM pg_class c
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = $1 AND a.attnotnull AND NOT a.attisdropped
        WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
          AND c.relname <> ALL ($2)`,
      [DISTRIBUTION_COLUMN, REFERENCE_TABLES],
    )
  ).map((row: { name: string }) => row.name);
  const violations: string[] = [];
  for (const c of await constraintsOf(manager)) {
    if (!scoped.includes(c.table) || !['p', 'u', 'f'].includes(c.type) || c.columns.includes(DISTRIBUTION_COLUMN)) continue;
    if (c.type === 'f' && REFERENCE_TABLES.some((t) => c.definition.includes(`REFERENCES ${t}(`))) continue;
    violations.push(`${c.table}.${c.name}: ${c.definition}`);
  }
  const uniqueIndexes: { table: string; definition: string }[] = await manager.query(
    `SELECT t.relname AS table, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i
       JOIN pg_class t ON t.oid = i.indrelid
      WHERE i.indisunique AND t.relname = ANY ($1)
        AND NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = t.oid AND a.attname = $2 AND a.attnum = ANY (i.indkey))`,
    [scoped, DISTRIBUTION_COLUMN],
  );
  for (const index of uniqueIndexes) violations.push(`${index.table}: ${index.definition}`);
  return violations;
}

async function constraintsOf(manager: EntityManager): Promise<ConstraintRow[]> {
  return manager.query(
    `SELECT t.relname AS table, k.conname AS name, k.contype AS type, pg_get_constraintdef(k.oid) AS definition,
            coalesce(array(SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = k.conrelid AND a.attnum = ANY (k.conkey)), '{}') AS columns
       FROM pg_constraint k
       JOIN pg_class t ON t.oid = k.conrelid
      WHERE t.relnamespace = current_schema()::regnamespace AND NOT t.relispartition AND k.conparentid = 0
      ORDER BY t.relname, k.conname`,
  );
}

function references(fk: ConstraintRow, tables: string[]): boolean {
  return tables.some((table) => new RegExp(`REFERENCES ("?)${table}\\1\\(`).test(fk.definition));
}

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
