'use strict';
/**
 * Summarises a V8 .cpuprofile (node --cpu-prof; `BENCH_PROFILE=1 npm run bench` writes Parley's to
 * bench/profiles/): self time by function and by package/file, and inclusive time of chosen frames.
 *
 *   node bench/lib/profile-summary.js bench/profiles/<file>.cpuprofile [top=40] [frame,frame,…]
 */
const fs = require('node:fs');

const [file, topArg, pattern] = process.argv.slice(2);
const top = Number(topArg || 40);
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);

const total = profile.samples.length;
const dt = (profile.endTime - profile.startTime) / total / 1000; // ms per sample
const counts = new Map();
for (const id of profile.samples) counts.set(id, (counts.get(id) || 0) + 1);

const label = (n) => {
  const f = n.callFrame;
  const url = f.url
    .replace(/^file:\/\//, '')
    .replace(/.*node_modules\//, 'nm:')
    .replace(/.*\/dist\//, 'dist/');
  return `${f.functionName || '(anon)'} ${url}:${f.lineNumber + 1}`;
};
const pkg = (n) => {
  const url = n.callFrame.url;
  if (!url) return n.callFrame.functionName.startsWith('(') ? n.callFrame.functionName : '(native)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.includes('/dist/')) return `dist/${url.split('/dist/')[1].split('/')[0]}`;
  if (url.startsWith('node:')) return url;
  return url;
};

const byFn = new Map();
const byPkg = new Map();
for (const [id, c] of counts) {
  const n = nodes.get(id);
  byFn.set(label(n), (byFn.get(label(n)) || 0) + c);
  byPkg.set(pkg(n), (byPkg.get(pkg(n)) || 0) + c);
}
const show = (title, map, limit) => {
  console.log(`\n${title}`);
  for (const [k, v] of [...map].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
    console.log(`${((100 * v) / total).toFixed(1).padStart(5)}%  ${(v * dt).toFixed(0).padStart(6)} ms  ${k}`);
  }
};
console.log(`${total} samples, ${(total * dt).toFixed(0)} ms`);
show('self time by package/file', byPkg, 30);
show('self time by function', byFn, top);

if (pattern) {
  // Inclusive time of every frame whose label contains one of the comma-separated strings
  // (counted once per sample; async continuations start new stacks, so this is the synchronous part).
  const needles = pattern.split(',');
  const re = { test: (l) => needles.some((n) => l.includes(n)) };
  const incl = new Map();
  for (const id of profile.samples) {
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const l = label(nodes.get(cur));
      if (re.test(l) && !seen.has(l)) {
        seen.add(l);
        incl.set(l, (incl.get(l) || 0) + 1);
      }
    }
  }
  show(`inclusive (synchronous) time of frames containing ${pattern}`, incl, top);
}
