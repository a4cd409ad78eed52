import { Fn, timed } from '../../harness/timed';

/**
 * The tier's files run under jest-light-runner (./../jest.config.js), which shares one module cache
 * per worker (the app's modules load once, not once per file) but enforces no timeout: as
 * test/harness/test-files.ts does for the main suite, every test and hook gets one here (its own
 * third argument, or TEST_TIMEOUT_MS), so a hung request fails its test instead of holding CI.
 * Nothing else of that file applies: this tier touches neither process.env nor a database.
 */
type Register = ((name: unknown, fn?: Fn, timeout?: number) => unknown) & Record<string, unknown>;
type Hook = (fn: Fn, timeout?: number) => unknown;

function timedTests(register: Register): Register {
  const wrapped = ((name: unknown, fn?: Fn, timeout?: number) => register(name, timed(fn, timeout, 'a test'), timeout)) as Register;
  Object.assign(wrapped, register);
  wrapped.only = (name: unknown, fn?: Fn, timeout?: number) => (register.only as Register)(name, timed(fn, timeout, 'a test'), timeout);
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
for (const name of ['it', 'test']) globals[name] = timedTests(globals[name] as Register);
for (const name of ['beforeAll', 'afterAll', 'beforeEach', 'afterEach']) {
  const hook = globals[name] as Hook;
  globals[name] = (fn: Fn, timeout?: number) => hook(timed(fn, timeout, `a ${name} hook`)!, timeout);
}
