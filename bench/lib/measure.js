'use strict';
/**
 * One measured slice of a scenario (warm-up, a wait for a quiet machine, the load, with the CPU of
 * the server, upstream and database backends and the server's peak RSS), and the merge of a
 * scenario's slices into one figure. `ctx`: { upstream, db (database.monitor), pids() (every
 * process of the benchmark), quietBudget, quietPct, quietMaxSec, warmupSec, log }.
 */
const os = require('node:os');
const { runLoad } = require('./load');
const { cpuMicros, cpuSplit, machineJiffies, memoryMB } = require('./processes');
const { summarize } = require('./stats');

/** CPU (µs) of everything this benchmark runs: the harness (autocannon), its children, the database's backends. */
async function ownCpu(ctx) {
  const self = process.cpuUsage();
  const children = ctx.pids().reduce((sum, pid) => sum + (cpuMicros(pid) ?? 0), 0);
  return { own: self.user + self.system + children, db: await ctx.db.snapshot(), machine: machineJiffies() };
}

/** Share of the machine (all CPUs, %) used by processes that are not part of the benchmark. */
function foreignPct(before, after, ctx) {
  const machineMicros = ((after.machine.busy - before.machine.busy) * 1e6) / 100;
  const totalMicros = ((after.machine.total - before.machine.total) * 1e6) / 100;
  const ours = after.own - before.own + ctx.db.cpuBetween(before.db, after.db);
  return totalMicros > 0 ? Math.max(0, Math.round(((machineMicros - ours) / totalMicros) * 1000) / 10) : 0;
}

/**
 * The machine is shared (other people's test runs): before a measurement, wait (up to
 * ctx.quietMaxSec per slice, ctx.quietBudget s in all) until other processes use less than
 * ctx.quietPct % of it.
 */
async function waitForQuiet(ctx) {
  const started = Date.now();
  for (;;) {
    const before = await ownCpu(ctx);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const pct = foreignPct(before, await ownCpu(ctx), ctx);
    const waited = (Date.now() - started) / 1000;
    if (pct < ctx.quietPct) return { waitedSec: Math.round(waited * 10) / 10, foreignPct: pct };
    if (waited >= ctx.quietMaxSec || ctx.quietBudget - waited <= 0) {
      ctx.log(`  machine not quiet (${pct}% used by other processes), measuring anyway`);
      ctx.quietBudget -= waited;
      return { waitedSec: Math.round(waited * 10) / 10, foreignPct: pct };
    }
  }
}

/** Peak RSS of `pid` while `work` runs, sampled every 100 ms (and once at the end). */
async function withPeakRss(pid, work) {
  let peak = 0;
  const sample = () => {
    const mem = memoryMB(pid);
    if (mem && mem.rss > peak) peak = mem.rss;
  };
  const timer = setInterval(sample, 100);
  try {
    const result = await work();
    sample();
    return { result, peakRssMB: peak };
  } finally {
    clearInterval(timer);
  }
}

/** One slice: warm-up, a wait for a quiet machine, then `durationSec` measured, with CPU and RSS. */
async function measureSlice(scenario, connections, durationSec, ctx) {
  const opts = { connections, ttfb: Boolean(scenario.stream) };
  const warm = ctx.warmupSec > 0 ? await runLoad(scenario.target, { ...opts, durationSec: ctx.warmupSec }) : { requests: 0 };
  const quiet = await waitForQuiet(ctx);
  const pids = { server: scenario.serverPid(), upstream: ctx.upstream.pid };
  const own0 = await ownCpu(ctx);
  const cpu0 = { server: cpuSplit(pids.server), upstream: cpuMicros(pids.upstream) };
  const { result, peakRssMB } = await withPeakRss(pids.server, () => runLoad(scenario.target, { ...opts, durationSec }));
  const cpu1 = { server: cpuSplit(pids.server), upstream: cpuMicros(pids.upstream) };
  const own1 = await ownCpu(ctx);
  return {
    result,
    warmupRequests: warm.requests,
    quietWaitSec: quiet.waitedSec,
    serverUser: cpu1.server.user - cpu0.server.user,
    serverSys: cpu1.server.sys - cpu0.server.sys,
    upstream: cpu1.upstream - cpu0.upstream,
    db: scenario.usesDb ? ctx.db.cpuBetween(own0.db, own1.db) : 0,
    peakRssMB,
    machineBusy: own1.machine.busy - own0.machine.busy,
    machineTotal: own1.machine.total - own0.machine.total,
    foreignPct: foreignPct(own0, own1, ctx),
    // The 1-minute load average as the slice ends (the benchmark's own processes count in it too).
    loadAverage1m: Math.round(os.loadavg()[0] * 100) / 100,
  };
}

/** The slices of one scenario at one connection count, as one run: responses pooled, CPU summed. */
function mergeSlices(scenario, connections, slices) {
  const requests = slices.reduce((n, s) => n + s.result.requests, 0);
  const seconds = slices.reduce((n, s) => n + s.result.durationSec, 0);
  const sum = (field) => slices.reduce((n, s) => n + s[field], 0);
  const perReq = (micros) => (requests > 0 ? Math.round(micros / requests) : null);
  const statuses = {};
  for (const s of slices) for (const [code, n] of Object.entries(s.result.statuses)) statuses[code] = (statuses[code] || 0) + n;
  const busyTotal = sum('machineTotal');
  return {
    scenario: scenario.id,
    name: scenario.name,
    connections,
    slices: slices.length,
    durationSec: seconds,
    requests,
    warmupRequests: sum('warmupRequests'),
    non2xx: slices.reduce((n, s) => n + s.result.non2xx, 0),
    errors: slices.reduce((n, s) => n + s.result.errors, 0),
    timeouts: slices.reduce((n, s) => n + s.result.timeouts, 0),
    statuses,
    rps: Math.round((requests / seconds) * 10) / 10,
    latencyMs: summarize(slices.flatMap((s) => s.result.raw.latencies)),
    ...(scenario.stream ? { ttfbMs: summarize(slices.flatMap((s) => s.result.raw.firstBytes)) } : {}),
    cpuPerRequestUs: {
      server: perReq(sum('serverUser') + sum('serverSys')),
      serverUser: perReq(sum('serverUser')),
      serverSys: perReq(sum('serverSys')),
      upstream: scenario.id.startsWith('a') ? null : perReq(sum('upstream')),
      db: scenario.usesDb ? perReq(sum('db')) : null,
    },
    rssMaxMB: Math.round(Math.max(...slices.map((s) => s.peakRssMB)) * 10) / 10,
    machineBusyPct: busyTotal > 0 ? Math.round((sum('machineBusy') / busyTotal) * 1000) / 10 : null,
    // The worst slice: a figure is only as clean as its noisiest part.
    foreignCpuPct: Math.max(...slices.map((s) => s.foreignPct)),
    quietWaitSec: Math.round(sum('quietWaitSec') * 10) / 10,
    foreignCpuPctBySlice: slices.map((s) => s.foreignPct),
    loadAverage1mBySlice: slices.map((s) => s.loadAverage1m),
  };
}

module.exports = { measureSlice, mergeSlices };
