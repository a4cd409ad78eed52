import { revokeLeases } from '../support/shared-pglite';
import { Fn, timed } from './timed';

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
type Register = (name: unknown, fn?: Fn, timeout?: number) => unknown;
type Hook = (fn: Fn, timeout?: number) => unknown;

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

function timedTests(register: Register & Record<string, unknown>): Register {
  const wrapped = ((name, fn, timeout) => register(name, timed(fn, timeout, 'a test'), timeout)) as Register & Record<string, unknown>;
  Object.assign(wrapped, register);
  wrapped.only = (name: unknown, fn?: Fn, timeout?: number) => (register.only as Register)(name, timed(fn, timeout, 'a test'), timeout);
  // jest-each calls the unwrapped registration, so each row's function is wrapped here.
  wrapped.each =
    (...table: unknown[]) =>
    (name: unknown, fn: Fn, timeout?: number) =>
      (register.each as (...t: unknown[]) => Register)(...table)(
        name,
        (...row: unknown[]) => timed(() => fn(...row), timeout, 'a test')!(),
        timeout,
      );
  return wrapped;
}

const globals = globalThis as unknown as Record<string, unknown>;
for (const name of ['it', 'test']) globals[name] = timedTests(globals[name] as Register & Record<string, unknown>);
globals.fit = (globals.it as Record<string, unknown>).only;
for (const name of ['beforeAll', 'afterAll', 'beforeEach', 'afterEach']) {
  const hook = globals[name] as Hook;
  globals[name] = (fn: Fn, timeout?: number) => hook(timed(fn, timeout, `a ${name} hook`)!, timeout);
}
