// A .js file, as jest.config.js reads it too (so required, not imported).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { TEST_TIMEOUT_MS } = require('./test-timeout') as { TEST_TIMEOUT_MS: number };

export type Fn = (...args: unknown[]) => unknown;

// The real timers, whatever a test fakes later.
const { setTimeout: realSetTimeout, clearTimeout: realClearTimeout } = globalThis;

/**
 * `fn` as a promise that rejects once `timeout` ms pass; a `done` callback is taken as jest takes
 * it. The runner's own arguments are not passed on (it calls a function of no parameters with one).
 */
export function timed(fn: Fn | undefined, timeout: number | undefined, what: string): Fn | undefined {
  if (typeof fn !== 'function') return fn;
  const ms = timeout ?? TEST_TIMEOUT_MS;
  return function (this: unknown) {
    const run =
      fn.length > 0
        ? new Promise((resolve, reject) => fn.call(this, (err?: unknown) => (err ? reject(err) : resolve(undefined))))
        : Promise.resolve().then(() => fn.call(this));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise((_, reject) => {
      timer = realSetTimeout(() => reject(new Error(`Exceeded timeout of ${ms} ms for ${what}.`)), ms);
    });
    return Promise.race([run, expired]).finally(() => realClearTimeout(timer));
  };
}

type Register = ((name: unknown, fn?: Fn, timeout?: number) => unknown) & Record<string, unknown>;
type Hook = (fn: Fn, timeout?: number) => unknown;

function timedTests(register: Register): Register {
  const wrapped = ((name: unknown, fn?: Fn, timeout?: number) => register(name, timed(fn, timeout, 'a test'), timeout)) as Register;
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

/**
 * Gives every test and hook registered from now on a timeout (its own third argument, or
 * TEST_TIMEOUT_MS), as jest's own runner does and jest-light-runner does not: one that runs past it
 * fails instead of holding the run until CI's limit. For the setup files of a run (test-files.ts,
 * the controller tier's timeouts.ts).
 */
export function timeEveryTestAndHook(): void {
  const globals = globalThis as unknown as Record<string, unknown>;
  for (const name of ['it', 'test']) globals[name] = timedTests(globals[name] as Register);
  globals.fit = (globals.it as Record<string, unknown>).only;
  for (const name of ['beforeAll', 'afterAll', 'beforeEach', 'afterEach']) {
    const hook = globals[name] as Hook;
    globals[name] = (fn: Fn, timeout?: number) => hook(timed(fn, timeout, `a ${name} hook`)!, timeout);
  }
}
