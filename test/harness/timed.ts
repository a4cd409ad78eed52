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
