#!/usr/bin/env node
// Checks that package-lock.json lists every package `npm ci` needs on ANY platform: each locked
// package's dependencies and optional dependencies (the other platforms' native builds included,
// e.g. @swc/core-darwin-arm64) must resolve to a locked entry, as npm resolves them (the nearest
// node_modules folder upwards). `npm ci` refuses a lock that misses one ("Missing: ... from lock
// file"), on every platform, even when the missing build is for another one. README "Dependencies"
// says how a dependency is added so that this passes.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const lockPath = path.join(__dirname, '..', process.argv[2] ?? 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const packages = lock.packages ?? {};

/** npm's resolution: from `from`'s own node_modules up to the root's. */
function resolves(from, name) {
  let dir = from;
  for (;;) {
    if (packages[`${dir ? `${dir}/` : ''}node_modules/${name}`]) return true;
    if (!dir) return false;
    const cut = dir.lastIndexOf('/node_modules/');
    dir = cut === -1 ? '' : dir.slice(0, cut);
  }
}

const missing = [];
for (const [location, entry] of Object.entries(packages)) {
  if (entry.link) continue;
  const wanted = { ...entry.dependencies, ...entry.optionalDependencies };
  // The root lists its devDependencies too; a package's own devDependencies are never installed.
  if (location === '') Object.assign(wanted, entry.devDependencies);
  for (const name of Object.keys(wanted)) {
    if (!resolves(location, name)) missing.push(`${name} (wanted by ${location || 'the root'})`);
  }
}

if (missing.length > 0) {
  console.error(`package-lock.json is incomplete: ${missing.length} package(s) are not locked, so \`npm ci\` refuses it:`);
  for (const line of missing.slice(0, 20)) console.error(`  ${line}`);
  console.error('Complete it with: bash scripts/complete-lock.sh (README "Dependencies")');
  process.exit(1);
}
console.log(`package-lock.json is complete (${Object.keys(packages).length - 1} packages, every platform's optional builds included)`);
