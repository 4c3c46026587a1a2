import { ExactSum } from './exact-sum.js';

/**
 * Latency statistics of one sample set, in ms. An empty sample set gives `count: 0` and `null` for
 * every statistic (not 0, which would read as a perfect latency).
 */
export interface LatencyStats {
  readonly count: number;
  readonly min: number | null;
  readonly mean: number | null;
  readonly p50: number | null;
  readonly p90: number | null;
  readonly p95: number | null;
  readonly p99: number | null;
  readonly max: number | null;
  /**
   * Present only when the percentiles are not exact: a streamed run's pooled values past what a
   * value → count store holds exactly, read from log buckets of this relative error (ValueCounts).
   */
  readonly approximate?: { readonly relativeError: number };
}

/**
 * The p-th percentile (0 ≤ p ≤ 100) of ascending-sorted samples by linear interpolation at rank
 * p/100·(n−1): with r = p/100·(n−1), lo = ⌊r⌋, the result is s[lo] + (r − lo)·(s[lo+1] − s[lo]).
 * Returns null for an empty array.
 */
export function percentile(sorted: ArrayLike<number>, p: number): number | null {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile p must be within [0, 100], got ${p}`);
  if (sorted.length === 0) return null;
  return interpolate(sorted.length, p, (k) => sorted[k]!, (k) => sorted[k + 1]!);
}

/**
 * `percentile` of n > 0 values known by rank (the k-th smallest, from 0): for stores that count
 * values rather than list them, with the same interpolation.
 */
export function percentileOfRanked(n: number, p: number, valueAt: (k: number) => number): number {
  return interpolate(n, p, valueAt, (k) => valueAt(k + 1));
}

/**
 * The interpolation of `percentile` over n > 0 values, given the value at a rank and the one
 * after it: r = p/100·(n−1), lo = ⌊r⌋, v(lo) + (r − lo)·(v(lo+1) − v(lo)), with v(lo+1) = v(lo)
 * at the top. One rule for sorted samples and for those ranked by selection.
 */
function interpolate(n: number, p: number, valueAt: (k: number) => number, valueAfter: (k: number) => number): number {
  const rank = (p / 100) * (n - 1);
  const lo = Math.floor(rank);
  const a = valueAt(lo);
  const b = lo + 1 < n ? valueAfter(lo) : a;
  return a + (rank - lo) * (b - a);
}

/** Min, mean, p50/p90/p95/p99 and max of unsorted samples (the input is not modified). */
export function summarize(samples: ArrayLike<number>): LatencyStats {
  return summarizeInPlace(Float64Array.from(samples));
}

/** `summarize`, reordering the values it is given instead of a copy of them (for samples made to be summarized). */
export function summarizeInPlace(values: Float64Array): LatencyStats {
  const count = values.length;
  if (count === 0) return { count, min: null, mean: null, p50: null, p90: null, p95: null, p99: null, max: null };
  // Rounded once: the same mean whatever the order of the samples (a streamed run's is settle order).
  const sum = new ExactSum();
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < count; i++) {
    const v = values[i]!;
    sum.add(v);
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const ranked = new OrderStatistics(values);
  // Ascending, as OrderStatistics requires.
  return { count, min, mean: sum.value() / count, p50: ranked.percentile(50), p90: ranked.percentile(90), p95: ranked.percentile(95), p99: ranked.percentile(99), max };
}

/**
 * `percentile` of unsorted samples without sorting them: the rank the interpolation starts from is
 * found by selection (Hoare's FIND), O(n) rather than O(n log n) for a sort, and the next one up is
 * the least value above it. A million-request run pools ~1.3·10⁸ inter-token gaps, and its report
 * sorted them three times (overall, per class, per tenant). The values are those of a full sort,
 * so the results are the same. Percentiles must be asked for in ascending order: each selection
 * works only on what lies above the last rank found, which it leaves in place.
 */
class OrderStatistics {
  /** The last rank selected: values[0…found] are no larger than values[found], values above it no smaller. */
  private found = -1;

  /** Reorders `values` in place. */
  constructor(private readonly values: Float64Array) {}

  /** `percentile(sorted, p)` of the values; p no smaller than the last one asked for. */
  percentile(p: number): number {
    return interpolate(this.values.length, p, (k) => this.at(k), (k) => this.leastAbove(k));
  }

  /** The value a full sort would put at index k (the last rank found, or one above it). */
  private at(k: number): number {
    if (k < this.found) throw new RangeError(`rank ${k} asked for below rank ${this.found}: percentiles must be asked for in ascending order`);
    if (k > this.found) {
      select(this.values, k, this.found + 1, this.values.length - 1);
      this.found = k;
    }
    return this.values[k]!;
  }

  /** The value a sort would put right after rank k (just selected): the least of those above it. */
  private leastAbove(k: number): number {
    const { values } = this;
    let least = values[k + 1]!;
    for (let i = k + 2; i < values.length; i++) if (values[i]! < least) least = values[i]!;
    return least;
  }
}

/**
 * Rearranges a[left…right] so that a[k] holds the value a sort would put there, with no larger
 * value before it and no smaller one after (C. A. R. Hoare, "Algorithm 65: FIND", 1961; N. Wirth's
 * formulation). Median-of-three pivots; runs of equal values, common among gaps of one step
 * length, split evenly rather than degrading to quadratic time.
 */
function select(a: Float64Array, k: number, left: number, right: number): void {
  while (left < right) {
    const mid = (left + right) >>> 1;
    const x = a[left]!;
    const y = a[mid]!;
    const z = a[right]!;
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let i = left;
    let j = right;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    // a[left…j] ≤ pivot ≤ a[i…right], and everything strictly between j and i equals the pivot.
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return;
  }
}
