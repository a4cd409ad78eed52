import { revokeLeases } from '../support/shared-pglite';
import { timeEveryTestAndHook } from './timed';

/**
 * jest-light-runner runs a worker's test files one after another in one module cache and one
 * global scope (docs/testing.md, "How a run is put together"): the application's modules load once
 * per worker instead of once per file. This setup file (once per worker) gives each file what
 * jest's own runner gave it and that runner does not:
 *
 * - process.env as the worker began with it: `createTestApp(env)` writes its settings there, and a
 *   file's settings must not configure the next file's application;
 * - no spies or fake timers left by the file before;
 * - the leases of the file before on the worker's PGlite revoked (test/support/shared-pglite.ts);
 * - a timeout on every test and hook (its own third argument, or TEST_TIMEOUT_MS): one that runs
 *   past it fails, as in jest's runner, instead of holding the run until CI's limit.
 */
type Hook = (fn: () => unknown) => unknown;

const startEnv = { ...process.env };
const TEST_FILE = /\.(spec|e2e-spec)\.ts$/;
const circusBeforeAll = globalThis.beforeAll as unknown as Hook;

function beforeNextFile(): void {
  for (const key of Object.keys(process.env)) if (!(key in startEnv)) delete process.env[key];
  Object.assign(process.env, startEnv);
  jest.restoreAllMocks();
  jest.useRealTimers();
  // The first hook of the new file's root block (the runner reset jest-circus's state before loading it).
  circusBeforeAll(() => revokeLeases());
}

// The runner loads a test file with import(), which test/harness/typescript-hooks.mjs hands to require.
const compileTypeScript = require.extensions['.ts'];
if (!compileTypeScript) throw new Error('No TypeScript loader: jest.config.js lists test/harness/typescript.mjs first in setupFiles');
require.extensions['.ts'] = function (module, filename) {
  if (TEST_FILE.test(filename)) beforeNextFile();
  return compileTypeScript.call(this, module, filename);
};

timeEveryTestAndHook();
