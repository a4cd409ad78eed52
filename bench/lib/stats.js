'use strict';

/** Nearest-rank percentile of an ascending-sorted array. */
function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** p50/p90/p99/mean/max of a list of milliseconds, rounded to microseconds. */
function summarize(values) {
  const sorted = Float64Array.from(values).sort();
  const round = (v) => (v === null ? null : Math.round(v * 1000) / 1000);
  const mean = sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : null;
  return {
    count: sorted.length,
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p99: round(percentile(sorted, 99)),
    mean: round(mean),
    max: round(sorted.length ? sorted[sorted.length - 1] : null),
  };
}

module.exports = { percentile, summarize };
