import { LATENCY_BUCKET_STARTS, LATENCY_BUCKETS, latencyBucketBoundMs } from './usage-rollups';

/** The bucket by its definition: the first whose upper bound holds the latency (at least 1 ms). */
function bucketByBounds(ms: number): number {
  let i = 0;
  while (i < LATENCY_BUCKETS - 1 && Math.max(ms, 1) > latencyBucketBoundMs(i)) i += 1;
  return i;
}

/** What PostgreSQL's width_bucket(latency, starts) answers: how many starts are at or below it. */
const bucketByStarts = (ms: number) => LATENCY_BUCKET_STARTS.filter((start) => start <= ms).length;

describe('latency buckets of the rollups', () => {
  it('counting bucket starts places every integer latency where the bounds put it', () => {
    expect(LATENCY_BUCKET_STARTS).toHaveLength(LATENCY_BUCKETS - 1);
    // Every latency up to 10 s, and the three integers on each side of every bound beyond.
    const latencies = Array.from({ length: 10_004 }, (_, i) => i - 3);
    for (let i = 0; i < LATENCY_BUCKETS - 1; i += 1) {
      const bound = Math.floor(latencyBucketBoundMs(i));
      for (let d = -3; d <= 3; d += 1) latencies.push(bound + d);
    }
    const mismatches: number[] = [];
    for (const ms of latencies) if (bucketByStarts(ms) !== bucketByBounds(ms)) mismatches.push(ms);
    expect(mismatches).toEqual([]);
    expect([bucketByStarts(16), bucketByStarts(17), bucketByStarts(10_000_000)]).toEqual([0, 1, LATENCY_BUCKETS - 1]);
  });
});
