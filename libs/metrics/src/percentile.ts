/**
 * Latency statistics of one sample set, in ms. An empty sample set gives `count: 0` and `null` for
 * every statistic (not 0, which would read as a perfect latency).
 */
export interface LatencyStats {
  readonly count: number;
  readonly mean: number | null;
  readonly p50: number | null;
  readonly p90: number | null;
  readonly p95: number | null;
  readonly p99: number | null;
}

/**
 * The p-th percentile (0 ≤ p ≤ 100) of ascending-sorted samples by linear interpolation at rank
 * p/100·(n−1): with r = p/100·(n−1), lo = ⌊r⌋, the result is s[lo] + (r − lo)·(s[lo+1] − s[lo]).
 * Returns null for an empty array.
 */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile p must be within [0, 100], got ${p}`);
  const n = sorted.length;
  if (n === 0) return null;
  const rank = (p / 100) * (n - 1);
  const lo = Math.floor(rank);
  const hi = Math.min(lo + 1, n - 1);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return a + (rank - lo) * (b - a);
}

/** Mean and p50/p90/p95/p99 of unsorted samples (the input is not modified). */
export function summarize(samples: readonly number[]): LatencyStats {
  const sorted = [...samples].sort((a, b) => a - b);
  const count = sorted.length;
  const mean = count === 0 ? null : sorted.reduce((s, x) => s + x, 0) / count;
  return {
    count,
    mean,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
  };
}
