import { v7 as uuidv7, validate as uuidValidate } from 'uuid';

/** Time-ordered ids made by the application: PGlite has no uuid-ossp/pgcrypto, and v7 keeps btree inserts local. */
export function newId(): string {
  return uuidv7();
}

/** A malformed id can never name a stored row; callers answer "not found" instead of letting the cast fail in SQL. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && uuidValidate(value);
}
