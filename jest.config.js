/** Unit specs live beside the code (src/**\/*.spec.ts), end-to-end specs under test/. */
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
  testEnvironment: 'node',
  testTimeout: 60000,
};
