/** The time a test or hook may take unless it names its own (jest.config.js, test/harness/test-files.ts). */
module.exports = { TEST_TIMEOUT_MS: 60_000 };
