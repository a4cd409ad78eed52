import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

import { runStatement } from './prepared-statements';

/** SQL text by table and shape (which columns the statement names); bounded, a handful in practice. */
const statements = new Map<string, string>();
const MAX_STATEMENTS = 500;

/**
 * A plain parameterised INSERT of entity rows, for the invoke path's writes (request logs, threads,
 * thread messages, responses). `Repository.insert` builds the same statement through TypeORM's
 * query builder on every call, several hundred microseconds of CPU per call on a small server (see
 * docs/performance.md); here the SQL text is built once per table and shape and reused.
 * Same semantics as `insert()` for plain column entities like these: no listeners or subscribers
 * (none of them has any), a property left `undefined` takes the column's DEFAULT, jsonb values
 * are sent as JSON text (arrays included, which `pg` alone would send as PostgreSQL arrays).
 */
export async function fastInsert<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  rows: readonly T[],
  computed?: ComputedColumns,
): Promise<void> {
  if (rows.length === 0) return;
  const { sql, parameters } = insertOf(manager, target, rows, computed);
  await runStatement(manager, sql, parameters);
}

/**
 * The INSERT fastInsert would run, as SQL text and parameters ($1 first), for a caller that sends
 * it together with more in one statement (the request logs and their usage rollups).
 *
 * The rows go column by column: `INSERT … SELECT … FROM ROWS FROM (unnest($1::uuid[]),
 * jsonb_array_elements($2::jsonb), …)`, one parameter per column: an array, or for a jsonb column
 * one JSON text of the column's values (one JSON.stringify, nothing escaped into an array literal
 * and parsed out of it again). Its text does not depend on how many rows a batch has, so each
 * connection parses it once and PostgreSQL soon keeps one generic plan for it; a multi-row
 * `VALUES` list was a new statement for every batch size, parsed and planned again and again
 * (about a fifth of PostgreSQL's CPU under load; docs/performance-history.md, "Sixth session"). A batch
 * where some rows leave a column undefined (its DEFAULT) and others do not, or with a column that
 * is itself an array, goes as a `VALUES` list.
 */
export function insertOf<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  rows: readonly T[],
  computed?: ComputedColumns,
): { sql: string; parameters: unknown[] } {
  const metadata = manager.connection.getMetadata(target);
  const columns = metadata.columns;
  // One pass over the rows' values (their keyed reads are the costly part): each column's values,
  // and whether some row gave it (1) and some row left it undefined (2).
  const values: unknown[][] = columns.map(() => new Array<unknown>(rows.length));
  const given = new Uint8Array(columns.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    for (let c = 0; c < columns.length; c++) {
      const column = columns[c];
      const value = row[column.propertyName];
      if (value === undefined) {
        given[c] |= 2;
        values[c][r] = null;
      } else {
        given[c] |= 1;
        // jsonb columns go as one JSON text below; a json column's values as JSON texts in an array.
        values[c][r] = column.type === 'json' && value !== null ? JSON.stringify(value) : value;
      }
    }
  }
  let shape = metadata.tablePath;
  const parameters: unknown[] = [];
  for (let c = 0; c < columns.length; c++) {
    if (given[c] === 2) {
      shape += '0'; // no row gives it: the column's DEFAULT
      continue;
    }
    // Some rows give it, some leave it to a DEFAULT the entity does not know (the migrations set it).
    if (given[c] === 3 || columns[c].isArray) {
      if (computed) throw new Error(`insertOf: computed columns need every row to give the same columns (${metadata.tablePath})`);
      return valuesInsertOf(metadata.tablePath, columns, rows);
    }
    shape += '1';
    // A jsonb column as one JSON array (one JSON.stringify, no escaping into an array literal).
    parameters.push(isJsonb(columns[c]) ? JSON.stringify(values[c]) : values[c]);
  }
  if (computed) shape += `\u0002${computed.key}`;
  let sql = statements.get(shape);
  if (!sql) {
    const named = columns.filter((_, c) => given[c] !== 2);
    const sources = named.map((column, i) =>
      isJsonb(column)
        ? `jsonb_array_elements($${i + 1}::jsonb)`
        : `unnest($${i + 1}::${manager.connection.driver.normalizeType(column)}[])`,
    );
    // A JS null is SQL NULL, as in the VALUES form: the JSON array's null elements are turned back into it.
    const plain = named.map((column, i) => (isJsonb(column) ? `nullif(c${i}, 'null'::jsonb)` : `c${i}`));
    const overrides = computed?.expressions((property) => {
      const i = named.findIndex((column) => column.propertyName === property);
      if (i < 0) throw new Error(`insertOf: no column ${property} given (${metadata.tablePath})`);
      return plain[i];
    });
    const selected = named.map((column, i) => overrides?.[column.propertyName] ?? plain[i]);
    sql =
      `INSERT INTO "${metadata.tablePath}" (${named.map((column) => `"${column.databaseName}"`).join(', ')}) ` +
      `SELECT ${selected.join(', ')} FROM ROWS FROM (${sources.join(', ')}) AS r(${named.map((_, i) => `c${i}`).join(', ')})`;
    remember(shape, sql);
  }
  return { sql, parameters };
}

/**
 * Columns whose inserted value is an SQL expression of the row's given values (`column(property)`
 * is that value as the statement reads it), under `key`, which names the expressions in the
 * statement cache. Every row must give the same columns.
 */
export interface ComputedColumns {
  key: string;
  expressions: (column: (property: string) => string) => Record<string, string>;
}

function isJsonb(column: ColumnMetadata): boolean {
  return column.type === 'jsonb';
}

function isJson(column: ColumnMetadata): boolean {
  return column.type === 'jsonb' || column.type === 'json';
}

function remember(shape: string, sql: string): void {
  if (statements.size >= MAX_STATEMENTS) statements.clear();
  statements.set(shape, sql);
}

/** The same rows as a multi-row VALUES list, each row's undefined properties as DEFAULT. */
function valuesInsertOf(
  table: string,
  columns: readonly ColumnMetadata[],
  rows: readonly ObjectLiteral[],
): { sql: string; parameters: unknown[] } {
  let shape = `${table}\u0001`;
  const parameters: unknown[] = [];
  for (const row of rows) {
    shape += '\u0000';
    for (const column of columns) {
      const value = row[column.propertyName];
      if (value === undefined) {
        shape += '0';
        continue;
      }
      shape += '1';
      parameters.push(value === null ? null : isJson(column) ? JSON.stringify(value) : value);
    }
  }
  let sql = statements.get(shape);
  if (!sql) {
    let n = 0;
    const tuples = rows.map(
      (row) => `(${columns.map((column) => (row[column.propertyName] === undefined ? 'DEFAULT' : `$${++n}`)).join(', ')})`,
    );
    sql = `INSERT INTO "${table}" (${columns.map((column) => `"${column.databaseName}"`).join(', ')}) VALUES ${tuples.join(', ')}`;
    remember(shape, sql);
  }
  return { sql, parameters };
}
