#!/usr/bin/env node
// `npm start`'s and `npm run cli`'s pre-step: compiles src/ only when a source or build setting is newer than the
// last build (docs/operations.md has the measured times), and says so on stderr, so a start never looks hung and `npm run cli` output stays clean.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
// nest build empties dist/ first (deleteOutDir), so dist/main.js is as old as the last build.
const built = path.join(root, 'dist', 'main.js');
const inputs = ['src', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json', 'package-lock.json'];

function newestMtime(target) {
  let stat;
  try {
    stat = fs.statSync(target);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs.readdirSync(target).reduce((newest, name) => Math.max(newest, newestMtime(path.join(target, name))), stat.mtimeMs);
}

const builtAt = fs.existsSync(built) ? fs.statSync(built).mtimeMs : 0;
const sourcesAt = Math.max(...inputs.map((name) => newestMtime(path.join(root, name))));
if (builtAt >= sourcesAt) process.exit(0);

const started = Date.now();
console.error(builtAt ? 'Parley: sources changed since the last build, compiling (nest build)...' : 'Parley: first start, compiling the TypeScript sources once (nest build, about 10-40 s)...');
execFileSync(process.execPath, [require.resolve('@nestjs/cli/bin/nest.js'), 'build'], { cwd: root, stdio: ['ignore', 2, 2] });
console.error(`Parley: compiled in ${((Date.now() - started) / 1000).toFixed(1)} s; later starts skip this until a source changes.`);
