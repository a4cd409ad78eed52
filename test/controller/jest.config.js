/**
 * `npm run test:controllers`: the controller tier (test/controller/README.md): the spec's
 * controllers with the app's global guard, pipe and filter, on in-memory fakes. No database, so
 * none of the main config's global setup (the migrated PGlite dump, PostgreSQL's templates) nor its
 * per-worker database set-up. The files end in `.controller-spec.ts`, which the main config's
 * testRegex does not match: `npm test` does not run them (CI runs them once, in its first stage).
 */
const { moduleFileExtensions, transform } = require('../../jest.config.js');

module.exports = {
  moduleFileExtensions,
  // For what jest itself loads; the test files go through the worker's loader (below).
  transform,
  testEnvironment: 'node',
  rootDir: __dirname,
  roots: ['<rootDir>'],
  testRegex: '.*\\.controller-spec\\.ts$',
  // As the main config: plain Node.js workers sharing one module cache, so the application's
  // modules load once per worker, not once per file (docs/testing.md, "How a run is put together").
  runner: 'jest-light-runner',
  setupFiles: ['<rootDir>/../harness/typescript.mjs'],
  setupFilesAfterEnv: ['<rootDir>/support/timeouts.ts'],
};
