import { v7 as uuidv7, validate as uuidValidate } from 'uuid';

/** Time-ordered ids made by the application: PGlite has no uuid-ossp/pgcrypto, and v7 keeps btree inserts local. */
export function newId(): string {
  return uuidv7();
}

/** A malformed id can never name a stored row; callers answer "not found" instead of letting the cast fail in SQL. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && uuidValidate(value);
}

/** A stored Response's id: `resp_` and the row's UUID as 32 hex digits (OpenAI's shape: docs/openai-conversations.md). */
export const responseIdOf = (uuid: string) => `resp_${uuid.replace(/-/g, '')}`;

/** The row's UUID of a Response id, or null when it is not one. */
export function uuidOfResponseId(id: string): string | null {
  const match = /^resp_([0-9a-f]{32})$/.exec(id);
  if (!match) return null;
  const h = match[1];
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
