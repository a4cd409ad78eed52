/**
 * Unit specs live beside the code (src/**\/*.spec.ts), medium-tier specs (services on a real
 * database) under test/medium/, end-to-end specs under test/. `npm test` (scripts/test.js) runs the
 * files in parallel workers, then the `*.serial.e2e-spec.ts` files one at a time (docs/testing.md).
 * The controller tier (test/controller/*.controller-spec.ts, no database) has a config of its own,
 * test/controller/jest.config.js (`npm run test:controllers`); this testRegex leaves it out.
 */
const { TEST_TIMEOUT_MS } = require('./test/harness/test-timeout');

module.exports = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testRegex: '.*\\.(spec|e2e-spec)\\.ts$',
  transform: {
    // For what jest itself loads (global setup and teardown); test files are compiled by the
    // workers' loader. Type checking is `npm run typecheck`. Nest's dependency injection needs the
    // decorators' design-time type metadata.
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  // Migrated once per run: a PGlite dump, or a PostgreSQL template copied per worker (test/harness).
  globalSetup: '<rootDir>/test/harness/global-setup.ts',
  globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
  setupFiles: ['<rootDir>/test/harness/typescript.mjs', '<rootDir>/test/harness/worker-database.ts'],
  // Test files run in plain Node.js worker threads that share one module cache per worker, so the
  // application loads once per worker, not once per file (docs/testing.md). TypeScript through
  // @swc-node/register (test/harness/typescript.mjs); test/harness/test-files.ts gives every file
  // a clean process.env, no spies left over, its own database leases, and timeouts.
  runner: 'jest-light-runner',
  setupFilesAfterEnv: ['<rootDir>/test/harness/test-files.ts'],
  // Longest first, from committed durations on a clean clone (jest has none of its own there).
  testSequencer: '<rootDir>/test/harness/sequencer.js',
  testTimeout: TEST_TIMEOUT_MS,
};
