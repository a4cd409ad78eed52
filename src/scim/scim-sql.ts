/** TypeORM answers an UPDATE or DELETE ... RETURNING with [rows, rowCount] on PostgreSQL (and on the PGlite pool). */
export function returnedRows<T>(result: unknown[]): T[] {
  return (Array.isArray(result[0]) ? result[0] : result) as T[];
}
