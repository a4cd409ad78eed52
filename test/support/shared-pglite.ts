import { readFileSync } from 'node:fs';

import { PGlite } from '@electric-sql/pglite';
import { getPGliteInstance, PGliteDriver } from 'typeorm-pglite';
import { PGliteInstance } from 'typeorm-pglite/dist/pglite-instance';

/**
 * One in-memory PGlite per jest worker, started from the run's migrated dump the first time a test
 * app asks, and used by the apps of the files that worker runs one after another, as they share the
 * worker's database on PostgreSQL (docs/testing.md, "One PGlite per jest worker"). A worker loads
 * this module once for all its files (jest-light-runner shares the module cache), so the PGlite
 * and its JavaScript stay warm.
 *
 * Each application gets a lease. When the worker's next test file starts, every lease of the one
 * before is revoked (test/harness/test-files.ts): its listeners removed, any later call refused, so
 * that an application a file left open cannot reach the next file's data, and a transaction left
 * open is rolled back.
 */
let worker: Promise<PGlite> | undefined;
const leases = new Set<Lease>();

class Lease {
  private readonly unlisteners = new Set<() => Promise<void>>();
  private revoked = false;

  constructor(private readonly pglite: PGlite) {}

  private check(): void {
    if (this.revoked) throw new Error('The shared PGlite was used after its test file ended (an application left open?)');
  }

  async query(sql: string, params?: unknown[]) {
    this.check();
    return this.pglite.query(sql, params);
  }

  async exec(sql: string) {
    this.check();
    return this.pglite.exec(sql);
  }

  async listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>> {
    this.check();
    const unlisten = await this.pglite.listen(channel, (payload) => this.revoked || callback(payload));
    this.unlisteners.add(unlisten);
    return async () => {
      if (this.unlisteners.delete(unlisten)) await unlisten();
    };
  }

  // The application closing closes nothing: the worker's next file uses the same PGlite.
  async close(): Promise<void> {}

  async revoke(): Promise<void> {
    this.revoked = true;
    for (const unlisten of this.unlisteners) await unlisten().catch(() => undefined);
    this.unlisteners.clear();
    if (this.pglite.isInTransaction()) await this.pglite.exec('ROLLBACK');
  }
}

/** typeorm-pglite as it is before any application: the next one to open starts a PGlite of its own. */
function forgetInstance(): void {
  Object.defineProperty(PGliteInstance, 'instance', { configurable: true, writable: true, value: null });
}

function startWorkerPGlite(dump: string): Promise<PGlite> {
  // With the options the application gives PGlite (src/database/data-source-options.ts: typeorm-pglite's serializers).
  forgetInstance();
  new PGliteDriver({ dataDir: 'memory://', loadDataDir: new Blob([readFileSync(dump)]) });
  return getPGliteInstance();
}

/**
 * Makes the worker's PGlite the one the next application opens; false when there is none
 * (PostgreSQL, or PARLEY_TEST_SHARED_PGLITE=0): the application then starts its own.
 */
export async function useWorkerPGlite(): Promise<boolean> {
  const dump = process.env.PARLEY_TEST_PGLITE_TEMPLATE;
  if (!dump || process.env.DATABASE_URL || process.env.PARLEY_TEST_SHARED_PGLITE === '0') return false;
  worker ??= startWorkerPGlite(dump);
  const lease = new Lease(await worker);
  leases.add(lease);
  // typeorm-pglite forgets its instance when an application closes (and would then start a PGlite of
  // its own for the next): this one stays until the next application takes a lease.
  Object.defineProperty(PGliteInstance, 'instance', { configurable: true, get: () => lease, set: () => undefined });
  return true;
}

/**
 * Revokes every lease taken so far, and leaves typeorm-pglite as it found it (an application that
 * wants a PGlite of its own gets one): called when the worker's next test file starts.
 */
export async function revokeLeases(): Promise<void> {
  for (const lease of leases) await lease.revoke();
  if (leases.size > 0) forgetInstance();
  leases.clear();
}

/** Closes the worker's PGlite, if it started one (the serial group runs in jest's own process, which it would keep alive). */
export async function closeWorkerPGlite(): Promise<void> {
  const started = worker;
  worker = undefined;
  await revokeLeases();
  await (await started)?.close();
}
