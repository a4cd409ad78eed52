import { createRequire, register } from 'node:module';

/**
 * First setup file of every jest worker (docs/testing.md, "How a run is put together"): the test
 * files run in plain Node.js (jest-light-runner), which loads TypeScript only through a loader.
 * `@swc-node/register` compiles `.ts` for `require` (with the decorators' design-time metadata
 * that Nest's injection needs, from tsconfig.json), and ./typescript-hooks.mjs makes `import()` of
 * a `.ts` file (how the runner loads test and setup files) go through `require` too, since the
 * project is CommonJS.
 */
const require = createRequire(import.meta.url);
const REGISTERED = Symbol.for('parley.test.typescript');
if (!globalThis[REGISTERED]) {
  globalThis[REGISTERED] = true;
  require('@swc-node/register');
  register('./typescript-hooks.mjs', import.meta.url);
}
