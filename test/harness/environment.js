const { TestEnvironment } = require('jest-environment-node');
const { readFileSync } = require('node:fs');
const { installCodeCache } = require('./code-cache');

/**
 * jest's node environment, plus one PGlite per jest worker that the test apps of the files it runs
 * use one after another (docs/testing.md, "One PGlite per jest worker"), as they share the worker's
 * database on PostgreSQL. Starting a PGlite from the run's dump costs a file ~1.5 s of CPU in its
 * own realm; this one starts once per worker, in the worker's own realm, and stays warm.
 *
 * Every file gets leases on it (test/support/shared-pglite.ts turns a lease into what
 * typeorm-pglite expects). When the file ends its leases are revoked: their listeners removed, any
 * later call refused (an app a file left open must not reach the next file's database), and a
 * transaction left open rolled back. Off with PARLEY_TEST_SHARED_PGLITE=0 (each app its own PGlite).
 * It also keeps V8's code cache of the modules the worker's files compile (./code-cache.js; off with
 * PARLEY_TEST_CODE_CACHE=0).
 */
const WORKER_STATE = Symbol.for('parley.test.sharedPGlite');
if (process.env.PARLEY_TEST_CODE_CACHE !== '0') installCodeCache();

function sharedPGlite(dump) {
  const state = (globalThis[WORKER_STATE] ??= {});
  state.instance ??= (async () => {
    // The options the application gives PGlite (src/database/data-source-options.ts, typeorm-pglite's serializers).
    const { PGliteDriver, getPGliteInstance } = require('typeorm-pglite');
    new PGliteDriver({ dataDir: 'memory://', loadDataDir: new Blob([readFileSync(dump)]) });
    return getPGliteInstance();
  })();
  return state.instance;
}

/** A parameter from the file's realm as PGlite's serializers (this realm's `instanceof Date`) expect it. */
function toWorkerRealm(value) {
  if (value === null || typeof value !== 'object') return value;
  if (Object.prototype.toString.call(value) === '[object Date]') return new Date(value.getTime());
  if (Array.isArray(value)) return Array.from(value, toWorkerRealm);
  return value; // Uint8Array is shared by the realms (jest's node environment); objects go through JSON.stringify
}

class Lease {
  constructor(pglite) {
    this.pglite = pglite;
    this.unlisteners = new Set();
    this.revoked = false;
  }

  check() {
    if (this.revoked) throw new Error('The shared PGlite was used after its test file ended (an application left open?)');
  }

  async query(sql, params) {
    this.check();
    return this.pglite.query(sql, params?.map(toWorkerRealm));
  }

  async exec(sql) {
    this.check();
    return this.pglite.exec(sql);
  }

  async listen(channel, callback) {
    this.check();
    const unlisten = await this.pglite.listen(channel, (payload) => this.revoked || callback(payload));
    this.unlisteners.add(unlisten);
    return async () => {
      if (this.unlisteners.delete(unlisten)) await unlisten();
    };
  }

  async revoke() {
    this.revoked = true;
    for (const unlisten of this.unlisteners) await unlisten().catch(() => undefined);
    this.unlisteners.clear();
    if (this.pglite.isInTransaction()) await this.pglite.exec('ROLLBACK');
  }
}

class ParleyTestEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.leases = [];
    const dump = process.env.PARLEY_TEST_PGLITE_TEMPLATE;
    if (dump && !process.env.DATABASE_URL && process.env.PARLEY_TEST_SHARED_PGLITE !== '0') {
      this.global.__parleySharedPGlite = {
        lease: async () => {
          const lease = new Lease(await sharedPGlite(dump));
          this.leases.push(lease);
          return lease;
        },
      };
    }
  }

  async teardown() {
    for (const lease of this.leases) await lease.revoke();
    await super.teardown();
  }
}

module.exports = ParleyTestEnvironment;
