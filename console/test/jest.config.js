/**
 * `npm run test:console`: the browser walk-through (docs/console.md, "Browser tests"); not part of
 * `npm test`. It starts its own server process on its own database, so it takes the transform of
 * the main config but none of its per-worker database set-up (nor its test environment).
 */
const { transform, moduleFileExtensions } = require('../../jest.config.js');

module.exports = {
  transform,
  moduleFileExtensions,
  // Plain node: the main config's environment shares a PGlite per worker, which this run does not use.
  testEnvironment: 'node',
  rootDir: __dirname,
  roots: ['<rootDir>'],
  testRegex: '.*\\.browser-spec\\.ts$',
  testTimeout: 120000,
};
