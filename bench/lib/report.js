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
  console.log(`\nParley benchmark ${report.timestamp}: ${report.command}`);
  console.log(
    `${m.nproc} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, PostgreSQL ${m.postgres}, ${m.kernel}; load average ${m.loadAverage.join(' ')} at start, ${m.loadAverageAtEnd.join(' ')} at end`,
  );
  const st = report.settings;
  console.log(
    `${st.durationSec}s per figure in ${st.rounds} slices (scenarios taking turns), ${st.warmupSecPerRound}s warm-up before each; latency = whole response, TTFB = first body byte; CPU in µs per request; RSS = peak MB of the server; busy % = whole machine, other % = processes not part of the benchmark (worst slice), load 1m = the 1-minute load average (highest at the end of a slice)`,
  );
  if (report.peers.portkey.skipped) console.log(`(p) Portkey SKIPPED: ${report.peers.portkey.skipped}`);
  console.log('');

  console.log(
    table(
      [
        'scenario',
        'conns',
        'req/s',
        'p50 ms',
        'p99 ms',
        'TTFB p50',
        'TTFB p99',
        'srv CPU',
        'db CPU',
        'upstr CPU',
        'RSS MB',
        'busy %',
        'other %',
        'load 1m',
        'errors',
      ],
      report.runs.map((r) => [
        `(${r.scenario}) ${r.name}`,
        r.connections,
        fmt(r.rps, 0),
        fmt(r.latencyMs.p50, 3),
        fmt(r.latencyMs.p99, 3),
        fmt(r.ttfbMs?.p50, 3),
        fmt(r.ttfbMs?.p99, 3),
        fmt(r.cpuPerRequestUs.server, 0),
        fmt(r.cpuPerRequestUs.db, 0),
        fmt(r.cpuPerRequestUs.upstream, 0),
        fmt(r.rssMaxMB, 0),
        fmt(r.machineBusyPct, 0),
        fmt(r.foreignCpuPct, 0),
        r.loadAverage1mBySlice ? fmt(Math.max(...r.loadAverage1mBySlice), 1) : '-',
        r.non2xx + r.errors,
      ]),
    ),
  );

  console.log('\nOverhead (ms added over the upstream alone; first byte for e, over a~) and throughput ratios:');
  console.log(
    table(
      ['scenario', 'conns', 'Δp50 vs a', 'Δp99 vs a', 'rps ÷ a', 'rps ÷ r', 'rps ÷ b', 'rps ÷ p'],
      report.overhead.map((o) => [
        o.scenario,
        o.connections,
        signed(o.addedOverUpstreamMs.p50),
        signed(o.addedOverUpstreamMs.p99),
        fmt(o.throughputVsUpstream, 3),
        fmt(o.throughputVsRawProxy, 3),
        fmt(o.throughputVsBareNest, 3),
        fmt(o.throughputVsPortkey, 3),
      ]),
    ),
  );

  if (report.logStorage && !report.logStorage.error) {
    const ls = report.logStorage;
    const at = ls.perTurn.map((t) => `turn ${t.turn}: ${t.storedBytes} B stored (${t.logicalBytes} B as text)`).join('; ');
    console.log(
      `\nLog storage, one ${ls.turns}-turn thread: ${at}; the thread's ${ls.turns} logs hold ${ls.totalStoredBytes} B stored (${ls.totalLogicalBytes} B as text)`,
    );
  }

  for (const issue of [...new Set(report.targets.map((t) => t.issue))]) {
    console.log(`\nTargets (issue ${issue}):`);
    for (const t of report.targets.filter((x) => x.issue === issue)) {
      const verdict = t.met === null ? 'N/A' : t.met ? 'MET' : 'MISSED';
      const value =
        t.value === null
          ? '-'
          : t.unit === 'ms'
            ? `${signed(t.value)} ms`
            : t.unit === 'MB'
              ? `${t.value.toFixed(0)} MB`
              : `${t.value.toFixed(2)}×`;
      const limit = `${t.kind === 'min' ? '≥' : '≤'} ${t.limit}${t.unit === 'ms' ? ' ms' : t.unit === 'MB' ? ' MB' : '×'}`;
      const why = t.notMeasured ? ` — ${t.notMeasured}` : '';
      const disturbed = t.disturbedPct ? ` — disturbed: other processes used ${t.disturbedPct}% of the machine meanwhile` : '';
      console.log(`  ${verdict.padEnd(6)} ${t.description}: ${value} (target ${limit})${why}${disturbed}`);
    }
  }
  if (report.databaseProbe) {
    const { selectRoundTripMs: rt, insertCommitMs: ic } = report.databaseProbe;
    console.log(
      `\nPostgreSQL alone (sequential, one connection): SELECT 1 p50 ${rt.p50} / p99 ${rt.p99} ms; one-row INSERT + commit p50 ${ic.p50} / p99 ${ic.p99} ms`,
    );
  }
  if (report.integrity) {
    const i = report.integrity;
    console.log(
      `Recorded by Parley: ${i.requestLogs} request logs (${i.requestLogs200} with status 200) for ${i.parleyCallsAnswered200} calls answered 200, ` +
        `${i.threads} threads, ${i.threadMessages} thread messages`,
    );
  }
  if (report.parleyMemoryMB)
    console.log(`Parley memory: RSS ${report.parleyMemoryMB.rssAtEnd} MB at the end, peak ${report.parleyMemoryMB.peak} MB over the run`);
  console.log(`wall clock ${report.wallClockSec}s`);
}

module.exports = { printReport };
