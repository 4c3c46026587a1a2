import { ExactSum } from './exact-sum.js';
import { percentileOfRanked, type LatencyStats } from './percentile.js';

/**
 * How many distinct values a `ValueCounts` counts exactly before it falls back to log buckets.
 * The twin's inter-token gaps are differences of integer-µs step times, and a step takes few
 * distinct lengths: a million-request run of the bench's workload pools ~1.3·10⁸ gaps of a few
 * thousand distinct values. A live run's gaps (timer readings) are nearly all distinct, and past
 * this cap (~50 MB of map) they are bucketed.
 */
export const EXACT_DISTINCT_VALUES = 1 << 20;

/**
 * The buckets' relative error past the cap: a value v is counted in the bucket of
 * ⌈log_γ v⌉ with γ = (1 + α)/(1 − α), and read back as its midpoint, within α·v of v (the
 * DDSketch construction: Masson, Rim and Lee, "DDSketch: a fast and fully-mergeable quantile
 * sketch with relative-error guarantees", VLDB 2019).
 */
export const SKETCH_RELATIVE_ERROR = 0.01;
const GAMMA = (1 + SKETCH_RELATIVE_ERROR) / (1 - SKETCH_RELATIVE_ERROR);
const LOG_GAMMA = Math.log(GAMMA);

/**
 * A pooled metric (the inter-token gaps of every request: billions at ten million requests) as
 * value → count. Count, min, max and mean (an exact sum) are always exact; the percentiles are
 * exact, by the same interpolation as a sorted array's, while the distinct values stay within
 * EXACT_DISTINCT_VALUES, and within SKETCH_RELATIVE_ERROR past it (the statistics then say so).
 */
export class ValueCounts {
  private exact: Map<number, number> | undefined = new Map();
  /** Past the cap: bucket index → count, by sign (zeros apart). */
  private positive = new Map<number, number>();
  private negative = new Map<number, number>();
  private zeros = 0;
  private count = 0;
  private min = Infinity;
  private max = -Infinity;
  private readonly sum = new ExactSum();

  /** `exactUpTo`: distinct values counted exactly before the buckets (tests give a small one). */
  constructor(private readonly exactUpTo = EXACT_DISTINCT_VALUES) {}

  add(value: number): void {
    this.count++;
    if (value < this.min) this.min = value;
    if (value > this.max) this.max = value;
    const exact = this.exact;
    if (exact === undefined) {
      this.sum.add(value);
      return this.bucket(value, 1);
    }
    exact.set(value, (exact.get(value) ?? 0) + 1);
    if (exact.size > this.exactUpTo) {
      this.exact = undefined;
      this.addToSum(exact);
      for (const [v, n] of exact) this.bucket(v, n);
    }
  }

  summary(): LatencyStats {
    const { count } = this;
    if (count === 0) return { count, min: null, mean: null, p50: null, p90: null, p95: null, p99: null, max: null };
    if (this.exact !== undefined) this.addToSum(this.exact);
    const ranked = this.exact === undefined ? this.bucketsRanked() : exactRanked(this.exact);
    const at = (p: number) => percentileOfRanked(count, p, ranked);
    return {
      count,
      min: this.min,
      mean: this.sum.value() / count,
      p50: at(50),
      p90: at(90),
      p95: at(95),
      p99: at(99),
      max: this.max,
      ...(this.exact === undefined ? { approximate: { relativeError: SKETCH_RELATIVE_ERROR } } : {}),
    };
  }

  /** Counted values into the sum: value × count each, exactly, once (the store takes no more values after its summary). */
  private addToSum(counts: Map<number, number>): void {
    for (const [v, n] of counts) this.sum.addTimes(v, n);
  }

  private bucket(value: number, n: number): void {
    if (value === 0) {
      this.zeros += n;
      return;
    }
    const buckets = value > 0 ? this.positive : this.negative;
    const index = Math.ceil(Math.log(Math.abs(value)) / LOG_GAMMA);
    buckets.set(index, (buckets.get(index) ?? 0) + n);
  }

  /** The k-th smallest value by buckets: the bucket's midpoint, kept within the exact min and max. */
  private bucketsRanked(): (k: number) => number {
    const midpoint = (index: number) => (2 * GAMMA ** index) / (GAMMA + 1);
    const values: number[] = [];
    const counts: number[] = [];
    for (const index of [...this.negative.keys()].sort((a, b) => b - a)) {
      values.push(-midpoint(index));
      counts.push(this.negative.get(index)!);
    }
    if (this.zeros > 0) {
      values.push(0);
      counts.push(this.zeros);
    }
    for (const index of [...this.positive.keys()].sort((a, b) => a - b)) {
      values.push(midpoint(index));
      counts.push(this.positive.get(index)!);
    }
    const at = rankedOf(Float64Array.from(values), counts);
    return (k) => Math.min(this.max, Math.max(this.min, at(k)));
  }
}

function exactRanked(counts: Map<number, number>): (k: number) => number {
  const values = Float64Array.from(counts.keys()).sort();
  return rankedOf(
    values,
    Array.from(values, (v) => counts.get(v)!),
  );
}

/** The k-th smallest of ascending values each repeated counts[i] times (binary search of the running totals). */
function rankedOf(values: Float64Array, counts: readonly number[]): (k: number) => number {
  const upTo = new Float64Array(values.length);
  let total = 0;
  for (let i = 0; i < values.length; i++) upTo[i] = total += counts[i]!;
  return (k) => {
    let lo = 0;
    let hi = values.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (upTo[mid]! > k) hi = mid;
      else lo = mid + 1;
    }
    return values[lo]!;
  };
}
