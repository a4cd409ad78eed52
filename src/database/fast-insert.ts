import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { runStatement } from './prepared-statements';

/** SQL text by table and shape (which values each row gives); bounded, a handful in practice. */
const statements = new Map<string, string>();
const MAX_STATEMENTS = 500;

/**
 * A plain parameterised INSERT of entity rows, for the invoke path's writes (request logs, threads,
 * thread messages). `Repository.insert` builds the same statement through TypeORM's query builder
 * on every call, several hundred microseconds of CPU per call on a small server (see
 * docs/performance.md); here the SQL text is built once per table and shape and reused.
 * Same semantics as `insert()` for plain column entities like these: no listeners or subscribers
 * (none of them has any), a property left `undefined` takes the column's DEFAULT, jsonb values
 * are sent as JSON text (arrays included, which `pg` alone would send as PostgreSQL arrays).
 */
export async function fastInsert<T extends ObjectLiteral>(manager: EntityManager, target: EntityTarget<T>, rows: readonly T[]): Promise<void> {
  if (rows.length === 0) return;
  const { sql, parameters } = insertOf(manager, target, rows);
  await runStatement(manager, sql, parameters);
}

/**
 * The INSERT fastInsert would run, as SQL text and parameters ($1 first), for a caller that sends
 * it together with more in one statement (the request logs and their usage rollups).
 */
export function insertOf<T extends ObjectLiteral>(manager: EntityManager, target: EntityTarget<T>, rows: readonly T[]): { sql: string; parameters: unknown[] } {
  const metadata = manager.connection.getMetadata(target);
  const columns = metadata.columns;
  // One pass over the rows' values: their parameters and the shape of the statement (which
  // columns each row leaves to DEFAULT) together; the rows' keyed reads are the costly part.
  let shape = metadata.tablePath;
  const parameters: unknown[] = [];
  for (const row of rows) {
    shape += '\u0000';
    for (const column of columns) {
      const value = row[column.propertyName];
      if (value === undefined) {
        shape += '0'; // DEFAULT in the statement
        continue;
      }
      shape += '1';
      parameters.push(value === null ? null : column.type === 'jsonb' || column.type === 'json' ? JSON.stringify(value) : value);
    }
  }
  let sql = statements.get(shape);
  if (!sql) {
    sql = insertStatement(metadata.tablePath, columns, rows);
    if (statements.size >= MAX_STATEMENTS) statements.clear();
    statements.set(shape, sql);
  }
  return { sql, parameters };
}

function insertStatement(table: string, columns: readonly { databaseName: string; propertyName: string }[], rows: readonly ObjectLiteral[]): string {
  let n = 0;
  const tuples = rows.map((row) => `(${columns.map((column) => (row[column.propertyName] === undefined ? 'DEFAULT' : `$${++n}`)).join(', ')})`);
  const names = columns.map((column) => `"${column.databaseName}"`).join(', ');
  return `INSERT INTO "${table}" (${names}) VALUES ${tuples.join(', ')}`;
}
