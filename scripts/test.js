#!/usr/bin/env node
/**
 * `npm test`: the whole suite in two groups (docs/testing.md). First every file that can share the
 * machine, in parallel jest workers, each with a database of its own; then the files named
 * `*.serial.e2e-spec.ts` (kill -9, several server processes, timing, EXPLAIN), one at a time.
 * With arguments (paths, patterns, jest flags) it runs just those, in parallel: `npm test -- test/foo`.
 * Builds dist/ first when stale (server processes and CLI tests run it). Prints each group's wall
 * time and a closing `N passed, N failed` line. PARLEY_TEST_RECORD_DURATIONS=1 rewrites the
 * parallel group's durations that test/harness/sequencer.js orders a clean clone's run by.
 */
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');

const JEST = [path.join(__dirname, '..', 'node_modules', 'jest', 'bin', 'jest.js')];
const SERIAL = '\\.serial\\.e2e-spec\\.ts$';
const workers = process.env.TEST_WORKERS ?? String(Math.max(2, os.availableParallelism?.() ?? os.cpus().length) + 1);

function runJest(label, args) {
  const started = Date.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-jest-'));
  const resultFile = path.join(dir, 'results.json');
  const run = spawnSync(process.execPath, [...JEST, '--json', `--outputFile=${resultFile}`, ...args], { stdio: 'inherit' });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  let counts = { passed: 0, failed: 0, skipped: 0 };
  try {
    const r = JSON.parse(fs.readFileSync(resultFile, 'utf8'));
    counts = {
      passed: r.numPassedTests,
      failed: r.numFailedTests + r.numRuntimeErrorTestSuites,
      skipped: r.numPendingTests + r.numTodoTests,
    };
    if (process.env.PARLEY_TEST_RECORD_DURATIONS && label === 'parallel group') recordDurations(r.testResults);
  } catch {
    counts.failed = run.status === 0 ? 0 : 1; // jest ended before writing its results
  }
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(`\n== ${label}: ${seconds} s, ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped ==\n`);
  return { ok: run.status === 0, ...counts };
}

/** What test/harness/sequencer.js orders a clean clone's parallel group by: each file's milliseconds. */
function recordDurations(testResults) {
  const root = path.join(__dirname, '..');
  const entries = testResults.map((t) => [path.relative(root, t.name).split(path.sep).join('/'), Math.round(t.endTime - t.startTime)]);
  entries.sort((a, b) => b[1] - a[1]);
  fs.writeFileSync(path.join(root, 'test', 'harness', 'durations.json'), `${JSON.stringify(Object.fromEntries(entries), null, 1)}\n`);
}

const args = process.argv.slice(2);
const explicit = args.some((arg) => !arg.startsWith('-'));
const groups = explicit
  ? [['selected tests', [`--maxWorkers=${workers}`, ...args]]]
  : [
      ['parallel group', [`--maxWorkers=${workers}`, `--testPathIgnorePatterns=${SERIAL}`, ...args]],
      ['serial group', ['--runInBand', `--testPathPatterns=${SERIAL}`, '--passWithNoTests', ...args]],
    ];

// Some tests run the built server or CLI (dist/) as processes of their own: build first when stale,
// as `npm start` does (a no-op when the build is current).
const build = spawnSync(process.execPath, [path.join(__dirname, 'build-if-stale.js')], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const results = groups.map(([label, jestArgs]) => runJest(label, jestArgs));
const total = results.reduce(
  (sum, r) => ({ passed: sum.passed + r.passed, failed: sum.failed + r.failed, skipped: sum.skipped + r.skipped }),
  { passed: 0, failed: 0, skipped: 0 },
);
console.log(`npm test: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
