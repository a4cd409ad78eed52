'use strict';
/** Child processes of the benchmark: start, wait until ready, read their CPU time, stop. */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const DIE_WITH_PARENT = path.join(__dirname, 'die-with-parent.js');
const CLK_TCK = 100; // USER_HZ: /proc reports CPU times in 1/100 s on Linux (getconf CLK_TCK)

const children = new Set();

/**
 * Starts `node [nodeArgs] script` with an IPC channel (so it dies with us) and resolves once it is
 * ready: an IPC message `{ready, url}`, or a stdout line matching `readyPattern` (group 1 = url).
 */
function startNode(name, script, { env = {}, nodeArgs = [], args = [], cwd, readyPattern, timeoutMs = 60_000 } = {}) {
  const child = spawn(process.execPath, ['-r', DIE_WITH_PARENT, ...nodeArgs, script, ...args], {
    env: { ...process.env, ...env },
    cwd,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const proc = { name, child, pid: child.pid, url: null, output: [], exited: false };
  children.add(proc);
  const keep = (chunk) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line) proc.output.push(line);
    if (proc.output.length > 200) proc.output.splice(0, proc.output.length - 200);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.on('exit', () => {
    proc.exited = true;
    children.delete(proc);
  });

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${name} not ready after ${timeoutMs} ms`)), timeoutMs);
    const done = (url) => {
      clearTimeout(timer);
      proc.url = url;
      resolve(proc);
    };
    const fail = (err) => {
      clearTimeout(timer);
      err.message += `\n--- last output of ${name} ---\n${proc.output.slice(-30).join('\n')}`;
      reject(err);
    };
    child.on('message', (msg) => msg && msg.ready && done(msg.url));
    if (readyPattern) {
      const onData = (chunk) => {
        const match = readyPattern.exec(chunk.toString('utf8'));
        if (match) {
          child.stdout.off('data', onData);
          done(match[1]);
        }
      };
      child.stdout.on('data', onData);
    }
    child.on('exit', (code, signal) => fail(new Error(`${name} exited (code ${code}, signal ${signal}) before it was ready`)));
    child.on('error', fail);
  });
}

/** SIGTERM (graceful shutdown), then SIGKILL if it is still there after `graceMs`. */
function stop(proc, graceMs = 5000) {
  if (!proc || proc.exited) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      try {
        proc.child.kill('SIGKILL');
      } catch {
        /* gone already */
      }
    }, graceMs);
    proc.child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      proc.child.kill('SIGTERM');
    } catch {
      clearTimeout(timer);
      resolve();
    }
  });
}

function stopAll() {
  return Promise.all([...children].map((proc) => stop(proc)));
}

/** Synchronous last resort (process 'exit' handler): kill whatever is left. */
function killAllNow() {
  for (const proc of children) {
    try {
      proc.child.kill('SIGKILL');
    } catch {
      /* gone already */
    }
  }
}

/** User and system CPU time of a process (all its threads) in microseconds; null once it is gone. */
function cpuSplit(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: (Number(fields[11]) * 1e6) / CLK_TCK, sys: (Number(fields[12]) * 1e6) / CLK_TCK };
  } catch {
    return null;
  }
}

/** User + system CPU time of a process in microseconds; null once it is gone. */
function cpuMicros(pid) {
  const split = cpuSplit(pid);
  return split && split.user + split.sys;
}

/** Resident set size (VmRSS) and its peak so far (VmHWM) of a process, in MB; null once it is gone. */
function memoryMB(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

/** Whole-machine busy and total jiffies, from the first line of /proc/stat. */
function machineJiffies() {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = v[3] + (v[4] || 0); // idle + iowait
  const total = v.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

module.exports = { startNode, stop, stopAll, killAllNow, cpuMicros, cpuSplit, machineJiffies, memoryMB };
