'use strict';
/**
 * Profiles one Parley scenario with Linux `perf` (V8's --cpu-prof inflates Parley's CPU at these
 * rates; docs/performance.md): Parley runs under `--perf-basic-prof` on a fresh database, gets
 * 10 s of load to warm up, then `perf record` samples it for `seconds` under the same load.
 * Prints the top self and inclusive frames and the share per package. A tool for profiling work,
 * not part of `npm run bench`.
 *
 *   node bench/perf.js [scenario c|d|e|f|g|h|i] [connections] [seconds] [dist dir]
 *   PERF_ENV='{"DB_POOL_SIZE":"20"}': more environment for Parley; PERF_TOP: how many inclusive frames
 *
 * The first line gives req/s, Parley's CPU per request (all threads, and its main thread alone),
 * how busy the main thread was and how busy the machine. Samples go to bench/profiles/ (git-ignored).
 */
const crypto = require('node:crypto');
const path = require('node:path');
const fs = require('node:fs');
const { spawn, execFileSync } = require('node:child_process');
const { createDatabase, runTool } = require('./lib/database');
const { runLoad } = require('./lib/load');
const { cpuMicros, machineJiffies, startNode } = require('./lib/processes');
const { setUpParley } = require('./lib/setup');
const { scenariosOf } = require('./lib/scenarios');

const [scenario = 'c', connArg = '64', secondsArg = '5', dist = 'dist'] = process.argv.slice(2);
const dbName = `parley_bench_perf_${Date.now()}_${process.pid}`;
const outDir = path.join(__dirname, 'profiles');

/** CPU time of a process's main thread (its tid is its pid), in microseconds. */
function mainThreadMicros(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100; // utime + stime in USER_HZ (1/100 s)
}

function classify(sym) {
  const m = /(\/node_modules\/(?:@[^/]+\/)?[^/]+)/.exec(sym);
  if (m) return m[1].replace('/node_modules/', '');
  if (/\/dist\//.test(sym)) return 'parley';
  if (/node:|^\S*\s*(?:Js|Lazy)/.test(sym) || / node:/.test(sym)) return 'node';
  if (/\[kernel|\[unknown\]|^entry_|^__x64|^do_syscall/.test(sym)) return 'kernel';
  return 'v8/native';
}

/**
 * /tmp/perf-<pid>.map only grows: code V8 moved or freed leaves its entry behind, and perf then
 * names new code at that address after the old function. Keep, of overlapping entries, the newest.
 */
function cleanPerfMap(pid) {
  const file = `/tmp/perf-${pid}.map`;
  const entries = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line, order) => {
      const [start, size] = line.split(' ', 2);
      const s = BigInt(`0x${start}`);
      return { line, order, start: s, end: s + BigInt(`0x${size}`) };
    });
  let kept = entries.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.order - b.order));
  for (let changed = true; changed;) {
    changed = false;
    const next = [];
    for (const entry of kept) {
      const last = next[next.length - 1];
      if (last && entry.start < last.end) {
        changed = true;
        if (entry.order > last.order) next[next.length - 1] = entry;
      } else next.push(entry);
    }
    kept = next;
  }
  fs.writeFileSync(file, kept.map((e) => e.line).join('\n') + '\n');
}

async function main() {
  fs.mkdirSync(outDir, { recursive: true });
  const adminKey = `ak_bench_${crypto.randomBytes(24).toString('base64url')}`;
  const databaseUrl = createDatabase(dbName);
  const upstream = await startNode('fake upstream', path.join(__dirname, 'lib', 'fake-upstream.js'));
  const env = {
    DATABASE_URL: databaseUrl,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'warn',
    PROVIDER_ALLOWED_HOSTS: '127.0.0.1',
    PARLEY_ADMIN_KEY: adminKey,
    PARLEY_SECRET_KEY: crypto.randomBytes(32).toString('base64url'),
    ...JSON.parse(process.env.PERF_ENV || '{}'),
  };
  const server = await startNode('Parley', path.resolve(dist, 'main.js'), {
    env,
    nodeArgs: ['--perf-basic-prof'],
    readyPattern: /(?:listening on |Swagger UI: )(http:\/\/[^\s/]+)/,
  });
  const setup = await setUpParley(server.url, adminKey, upstream.url);
  const found = scenariosOf({ upstream: { url: 'http://unused' }, parley: { url: server.url } }, setup).find((s) => s.id === scenario);
  if (!found || !found.usesDb) throw new Error(`scenario ${scenario}: not a Parley scenario (c, d, e, f, g or h)`);
  const connections = Number(connArg);
  await runLoad(found.target, { connections, durationSec: 10 });
  const data = path.join(outDir, `perf-${scenario}-${connections}.data`);
  const perf = spawn('perf', ['record', '-F', '1999', '-g', '-o', data, '-p', String(server.pid), '--', 'sleep', secondsArg], {
    stdio: 'ignore',
  });
  const before = cpuMicros(server.pid);
  const machineBefore = machineJiffies();
  const mainBefore = mainThreadMicros(server.pid);
  const result = await runLoad(found.target, { connections, durationSec: Number(secondsArg) });
  const cpu = cpuMicros(server.pid) - before;
  const mainThread = mainThreadMicros(server.pid) - mainBefore;
  const machine = machineJiffies();
  const busy = (machine.busy - machineBefore.busy) / (machine.total - machineBefore.total);
  await new Promise((resolve) => perf.on('exit', resolve));
  console.log(
    `${scenario} at ${connections}: ${Math.round(result.rps)} req/s, ${Math.round(cpu / result.requests)} µs CPU/request, p50 ${result.latencyMs.p50.toFixed(3)} ms; main thread ${Math.round(mainThread / result.requests)} µs/request, busy ${((100 * mainThread) / (Number(secondsArg) * 1e6)).toFixed(0)} % of the time; machine busy ${(100 * busy).toFixed(0)} %`,
  );
  cleanPerfMap(server.pid);
  const script = execFileSync('perf', ['script', '-i', data, '-F', 'ip,sym'], { maxBuffer: 1 << 30 }).toString('utf8');
  const self = new Map();
  const incl = new Map();
  const pkgs = new Map();
  let samples = 0;
  for (const block of script.split('\n\n')) {
    const frames = block
      .split('\n')
      .map((l) => l.trim().replace(/^[0-9a-f]+\s+/, ''))
      .filter(Boolean);
    if (!frames.length) continue;
    samples++;
    self.set(frames[0], (self.get(frames[0]) || 0) + 1);
    const pkg = classify(frames.find((f) => classify(f) !== 'v8/native' && classify(f) !== 'kernel') || frames[0]);
    pkgs.set(pkg, (pkgs.get(pkg) || 0) + 1);
    for (const f of new Set(frames)) incl.set(f, (incl.get(f) || 0) + 1);
  }
  const top = (map, n) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `${((100 * v) / samples).toFixed(1).padStart(5)} %  ${k.slice(0, 150)}`)
      .join('\n');
  console.log(
    `\n${samples} samples\n--- by package (nearest JS frame) ---\n${top(pkgs, 25)}\n--- self ---\n${top(self, 40)}\n--- inclusive ---\n${top(incl, Number(process.env.PERF_TOP || 80))}`,
  );
}

runTool(main, () => [dbName]);
