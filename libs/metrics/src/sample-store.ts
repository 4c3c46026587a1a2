import { summarizeInPlace, type LatencyStats } from './percentile.js';

/**
 * One metric's samples as they arrive, 8 bytes a value in a `Float64Array` that doubles when
 * full: a streamed run's per-request latencies (TTFT, TPOT, E2E: one value a request, 80 MB at
 * ten million), summarized at the end exactly as a kept run's.
 */
export class SampleStore {
  private values = new Float64Array(1_024);
  private count = 0;

  add(value: number): void {
    if (this.count === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count++] = value;
  }

  /** The statistics of every value added; reorders the store, which takes no more values after it. */
  summary(): LatencyStats {
    return summarizeInPlace(this.values.subarray(0, this.count));
  }
}
