import { LATENCY_BUCKETS, latencyBucketBoundMs } from '../request-logs/usage-rollups';

/**
 * A percentile (0-1) of a latency histogram (usage-rollups.ts): the bucket it falls in, placed
 * geometrically within the bucket by its rank. Error: within a bucket's width (±19 %). null
 * without calls. docs/usage.md, "Usage API".
 */
export function latencyPercentile(buckets: readonly number[], q: number): number | null {
  const total = buckets.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let i = 0; i < LATENCY_BUCKETS; i += 1) {
    const count = buckets[i] ?? 0;
    if (count === 0 || seen + count < rank) {
      seen += count;
      continue;
    }
    const low = i === 0 ? 1 : latencyBucketBoundMs(i - 1);
    // The overflow bucket has no upper bound: its lower bound is all that is known.
    const high = i === LATENCY_BUCKETS - 1 ? low : latencyBucketBoundMs(i);
    const within = (rank - seen) / count;
    return Math.round(low * (high / low) ** within);
  }
  return null;
}
