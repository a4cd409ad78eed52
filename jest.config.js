/**
 * Unit specs live beside the code (src/**\/*.spec.ts), medium-tier specs (services on a real
 * database) under test/medium/, end-to-end specs under test/. `npm test` (scripts/test.js) runs the
 * files in parallel workers, then the `*.serial.e2e-spec.ts` files one at a time (docs/testing.md).
 */
module.exports = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testRegex: '.*\\.(spec|e2e-spec)\\.ts$',
  transform: {
    // Type checking is `npm run typecheck`; jest only transpiles, with swc (far faster than
    // ts-jest). Nest's dependency injection needs the decorators' design-time type metadata.
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
  setupFiles: ['<rootDir>/test/harness/worker-database.ts'],
  // jest's node environment, plus one PGlite per worker that the files' test apps share (docs/testing.md).
  testEnvironment: '<rootDir>/test/harness/environment.js',
  // Longest first, from committed durations on a clean clone (jest has none of its own there).
  testSequencer: '<rootDir>/test/harness/sequencer.js',
  testTimeout: 60000,
};
