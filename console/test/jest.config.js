/** `npm run test:console`: the browser walk-through (docs/console.md, "Browser tests"); not part of `npm test`. */
const base = require('../../jest.config.js');

module.exports = {
  ...base,
  rootDir: __dirname,
  roots: ['<rootDir>'],
  testRegex: '.*\\.browser-spec\\.ts$',
  testTimeout: 120000,
};
