import { PGliteInstance } from 'typeorm-pglite/dist/pglite-instance';

/**
 * The jest worker's PGlite (test/harness/environment.js, docs/testing.md "One PGlite per jest
 * worker") as this file's application sees it: typeorm-pglite's instance, answering in this file's
 * realm. The PGlite lives in the worker's realm, so what it returns is made of that realm's
 * objects (another `Date`, `Array`, `Error`): copied here into this realm's, so that the
 * application's and the tests' `instanceof` checks and equality see what they would on a PGlite
 * of their own.
 */
interface Lease {
  query(sql: string, params?: unknown[]): Promise<unknown>;
  exec(sql: string): Promise<unknown>;
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
}

function toThisRealm(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Object.prototype.toString.call(value) === '[object Date]') return new Date((value as Date).getTime());
  if (ArrayBuffer.isView(value)) return value; // Uint8Array is shared by the realms (jest's node environment)
  if (Array.isArray(value)) return Array.from(value, toThisRealm);
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = toThisRealm(item);
  return copy;
}

/** PGlite's DatabaseError (code, detail, constraint, ...) as an Error of this realm. */
function errorOfThisRealm(err: unknown): unknown {
  if (err instanceof Error || err === null || typeof err !== 'object') return err;
  const source = err as Record<string, unknown>;
  const copy = new Error(String(source.message)) as Error & Record<string, unknown>;
  for (const key of Object.getOwnPropertyNames(source)) if (key !== 'message' && key !== 'stack') copy[key] = toThisRealm(source[key]);
  copy.name = String(source.name ?? 'Error');
  copy.stack = String(source.stack);
  return copy;
}

async function inThisRealm(answer: () => Promise<unknown>): Promise<never> {
  try {
    return toThisRealm(await answer()) as never;
  } catch (err) {
    throw errorOfThisRealm(err);
  }
}

/**
 * Makes the worker's PGlite the one the next application of this file opens; false when there is
 * none (PostgreSQL, or PARLEY_TEST_SHARED_PGLITE=0): the application then starts its own.
 */
export async function useWorkerPGlite(): Promise<boolean> {
  const shared = (globalThis as { __parleySharedPGlite?: { lease(): Promise<Lease> } }).__parleySharedPGlite;
  if (!shared) return false;
  const lease = await shared.lease();
  const instance = {
    query: (sql: string, params?: unknown[]) => inThisRealm(() => lease.query(sql, params)),
    exec: (sql: string) => inThisRealm(() => lease.exec(sql)),
    listen: (channel: string, callback: (payload: string) => void) => lease.listen(channel, callback),
    // The application closing closes nothing: the worker's next file uses the same PGlite.
    close: async () => undefined,
  };
  // typeorm-pglite forgets its instance when an application closes (and would then start a PGlite of
  // its own for the next): this one stays until the next application of the file takes a lease.
  Object.defineProperty(PGliteInstance, 'instance', { configurable: true, get: () => instance, set: () => undefined });
  return true;
}
