const Sequencer = require('@jest/test-sequencer').default;
const path = require('node:path');
const fs = require('node:fs');

/**
 * jest's order (failed first, then longest first), with the committed durations
 * (test/harness/durations.json, milliseconds per file) where jest has none of its own: on a clean
 * clone jest knows no durations and orders by file size, which started the longest file (the fuzzer)
 * a minute late and left one worker running it alone at the end (docs/testing.md, "Where the time
 * goes"). `PARLEY_TEST_RECORD_DURATIONS=1 npm test` rewrites the table (scripts/test.js).
 */
const TABLE = path.join(__dirname, 'durations.json');
let recorded;

class LongestFirstSequencer extends Sequencer {
  time(test) {
    const own = super.time(test);
    if (own !== undefined) return own;
    recorded ??= fs.existsSync(TABLE) ? JSON.parse(fs.readFileSync(TABLE, 'utf8')) : {};
    return recorded[path.relative(test.context.config.rootDir, test.path).split(path.sep).join('/')];
  }
}

module.exports = LongestFirstSequencer;
