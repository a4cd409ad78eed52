'use strict';
/** The stdout table of a benchmark report. */

const fmt = (v, digits = 2) => (v === null || v === undefined ? '-' : typeof v === 'number' ? v.toFixed(digits) : String(v));
const signed = (v, digits = 3) => (v === null || v === undefined ? '-' : `${v >= 0 ? '+' : ''}${v.toFixed(digits)}`);

function table(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i < 2 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function printReport(report) {
  const m = report.machine;
  console.log(`\nParley benchmark ${report.timestamp}`);
  console.log(`${m.nproc} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, PostgreSQL ${m.postgres}, ${m.kernel}`);
  const st = report.settings;
  console.log(`${st.durationSec}s per figure in ${st.rounds} slices (scenarios taking turns), ${st.warmupSecPerRound}s warm-up before each; latency = whole response, TTFB = first body byte; CPU in µs per request; busy % = whole machine, other % = processes not part of the benchmark (worst slice)\n`);

  console.log(
    table(
      ['scenario', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'TTFB p50', 'TTFB p99', 'srv CPU', 'upstr CPU', 'db CPU', 'busy %', 'other %', 'errors'],
      report.runs.map((r) => [
        `(${r.scenario}) ${r.name}`,
        r.connections,
        fmt(r.rps, 0),
        fmt(r.latencyMs.p50, 3),
        fmt(r.latencyMs.p99, 3),
        fmt(r.ttfbMs?.p50, 3),
        fmt(r.ttfbMs?.p99, 3),
        fmt(r.cpuPerRequestUs.server, 0),
        fmt(r.cpuPerRequestUs.upstream, 0),
        fmt(r.cpuPerRequestUs.db, 0),
        fmt(r.machineBusyPct, 0),
        fmt(r.foreignCpuPct, 0),
        r.non2xx + r.errors,
      ]),
    ),
  );

  console.log('\nOverhead (added ms; TTFB for e, over a~):');
  console.log(
    table(
      ['scenario', 'conns', 'Δp50 vs a', 'Δp99 vs a', 'Δp50 vs b', 'Δp99 vs b', 'rps ÷ a', 'rps ÷ b'],
      report.overhead.map((o) => [
        o.scenario,
        o.connections,
        signed(o.addedOverUpstreamMs.p50),
        signed(o.addedOverUpstreamMs.p99),
        signed(o.addedOverBareNestMs?.p50),
        signed(o.addedOverBareNestMs?.p99),
        fmt(o.throughputVsUpstream, 3),
        fmt(o.throughputVsBareNest, 3),
      ]),
    ),
  );

  console.log('\nTargets:');
  for (const t of report.targets) {
    const verdict = t.met === null ? 'n/a (not measured)' : t.met ? 'MET' : 'NOT MET';
    const value = t.value === null ? '-' : t.unit === 'ratio' ? t.value.toFixed(3) : `${signed(t.value)} ms`;
    const limit = t.unit === 'ratio' ? `≥ ${t.limit}` : `≤ ${t.limit} ms`;
    const disturbed = t.disturbedPct ? ` — disturbed: other processes used ${t.disturbedPct}% of the machine meanwhile, rerun` : '';
    console.log(`  ${verdict.padEnd(8)} ${t.description}: ${value} (target ${limit})${disturbed}`);
  }
  if (report.reference?.c64OverBareNodeHttp64 != null) {
    console.log(`  (for reference) (c) at 64 connections ÷ (b') bare Nest with node:http: ${report.reference.c64OverBareNodeHttp64.toFixed(3)}`);
  }
  if (report.databaseProbe) {
    const { selectRoundTripMs: rt, insertCommitMs: ic } = report.databaseProbe;
    console.log(`\nPostgreSQL alone (sequential, one connection): SELECT 1 p50 ${rt.p50} / p99 ${rt.p99} ms; one-row INSERT + commit p50 ${ic.p50} / p99 ${ic.p99} ms`);
  }
  if (report.integrity) {
    const i = report.integrity;
    console.log(
      `\nRecorded by Parley: ${i.requestLogs} request logs (${i.requestLogs200} with status 200) for ${i.parleyCallsAnswered200} calls answered 200, ` +
        `${i.threads} threads, ${i.threadMessages} thread messages`,
    );
  }
  console.log(`wall clock ${report.wallClockSec}s`);
}

module.exports = { printReport };
