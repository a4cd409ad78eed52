import { LATENCY_BUCKETS, latencyBucketBoundMs } from '../request-logs/usage-rollups';
import { latencyPercentile } from './latency-percentiles';

function histogram(latencies: number[]): number[] {
  const buckets = new Array<number>(LATENCY_BUCKETS).fill(0);
  for (const ms of latencies) {
    let i = 0;
    while (ms > latencyBucketBoundMs(i)) i += 1;
    buckets[i] += 1;
  }
  return buckets;
}

describe('latency percentiles from the rollups histogram', () => {
  it('is null without calls', () => {
    expect(latencyPercentile(new Array(LATENCY_BUCKETS).fill(0), 0.5)).toBeNull();
  });

  it('lands within a bucket width (±19 %) of the exact percentile', () => {
    const latencies = Array.from({ length: 1000 }, (_, i) => 20 + i * 7);
    const sorted = [...latencies].sort((a, b) => a - b);
    for (const q of [0.5, 0.95]) {
      const exact = sorted[Math.ceil(q * sorted.length) - 1];
      const estimate = latencyPercentile(histogram(latencies), q)!;
      expect(Math.abs(estimate - exact) / exact).toBeLessThan(0.19);
    }
  });

  it('puts latencies past the last bound in the overflow bucket', () => {
    const buckets = histogram([10 ** 7]);
    expect(buckets[LATENCY_BUCKETS - 1]).toBe(1);
    expect(latencyPercentile(buckets, 0.95)).toBe(Math.round(latencyBucketBoundMs(LATENCY_BUCKETS - 2)));
  });
});
