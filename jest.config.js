/** Unit specs live beside the code (src/**\/*.spec.ts), end-to-end specs under test/. */
module.exports = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testRegex: '.*\\.(spec|e2e-spec)\\.ts$',
  transform: {
    // Type checking is `npm run typecheck`; jest only transpiles, which keeps the suite fast.
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.jest.json' }],
  },
  testEnvironment: 'node',
  testTimeout: 60000,
};
