#!/usr/bin/env node
// `npm start`'s and `npm run cli`'s pre-step: compiles src/ only when a source or build setting is newer than the
// last build, and builds the console (console/, docs/console.md) only when its sources are newer than its last build
// (docs/operations.md has the measured times). Says so on stderr, so a start never looks hung and `npm run cli` output stays clean.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

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

/** Runs `build` when any of `inputs` is newer than `built` (a file every build rewrites). */
function rebuildIfStale({ built, inputs, first, again, build }) {
  const builtAt = fs.existsSync(built) ? fs.statSync(built).mtimeMs : 0;
  const sourcesAt = Math.max(...inputs.map((name) => newestMtime(path.join(root, name))));
  if (builtAt >= sourcesAt) return;
  const started = Date.now();
  console.error(builtAt ? again : first);
  build();
  console.error(`Parley: built in ${((Date.now() - started) / 1000).toFixed(1)} s; later starts skip this until a source changes.`);
}

// nest build empties dist/ first (deleteOutDir), so dist/main.js is as old as the last build.
rebuildIfStale({
  built: path.join(root, 'dist', 'main.js'),
  inputs: ['src', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json', 'package-lock.json'],
  first: 'Parley: first start, compiling the TypeScript sources once (nest build, about 10-40 s)...',
  again: 'Parley: sources changed since the last build, compiling (nest build)...',
  build: () =>
    execFileSync(process.execPath, [require.resolve('@nestjs/cli/bin/nest.js'), 'build'], { cwd: root, stdio: ['ignore', 2, 2] }),
});

// Vite empties console/dist first, so its index.html is as old as the last console build. The console is
// built with development dependencies; an install without them serves whatever build is there.
let vite = null;
try {
  // vite's package exports do not list its bin script: resolve it next to its package.json.
  vite = path.join(path.dirname(require.resolve('vite/package.json', { paths: [root] })), 'bin', 'vite.js');
} catch {
  if (!fs.existsSync(path.join(root, 'console', 'dist', 'index.html'))) {
    console.error(
      'Parley: the console is not built and vite is not installed (npm install without --omit=dev builds it); /console says so.',
    );
  }
}
if (vite) {
  rebuildIfStale({
    built: path.join(root, 'console', 'dist', 'index.html'),
    inputs: ['console/src', 'console/index.html', 'console/vite.config.mts', 'package-lock.json'],
    first: 'Parley: first start, building the console once (vite build, about 5-20 s)...',
    again: 'Parley: console sources changed since the last build, building it (vite build)...',
    build: () =>
      execFileSync(process.execPath, [vite, 'build', '--config', 'console/vite.config.mts', '--logLevel', 'warn'], {
        cwd: root,
        stdio: ['ignore', 2, 2],
      }),
  });
}
