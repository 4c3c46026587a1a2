import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { percentile, summarize } from './percentile.js';

describe('percentile', () => {
  it('interpolates linearly at rank p/100·(n−1)', () => {
    const s = [1, 2, 3, 4];
    expect(percentile(s, 0)).toBe(1);
    expect(percentile(s, 50)).toBeCloseTo(2.5, 12); // rank 1.5
    expect(percentile(s, 90)).toBeCloseTo(3.7, 12); // rank 2.7
    expect(percentile(s, 95)).toBeCloseTo(3.85, 12); // rank 2.85
    expect(percentile(s, 99)).toBeCloseTo(3.97, 12); // rank 2.97
    expect(percentile(s, 100)).toBe(4);
    expect(percentile([10, 20], 90)).toBeCloseTo(19, 12);
  });

  it('returns the only sample for n = 1 and null for n = 0', () => {
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNull();
  });

  it('rejects p outside [0, 100]', () => {
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], -1)).toThrow(RangeError);
    expect(() => percentile([1], Number.NaN)).toThrow(RangeError);
  });
});

describe('summarize', () => {
  it('leaves the samples as they are and gives mean and percentiles', () => {
    const samples = [4, 1, 3, 2];
    const st = summarize(samples);
    expect(samples).toEqual([4, 1, 3, 2]);
    expect(st.count).toBe(4);
    expect(st.mean).toBe(2.5);
    expect(st.p50).toBeCloseTo(2.5, 12);
    expect(st.p90).toBeCloseTo(3.7, 12);
    expect(st.p95).toBeCloseTo(3.85, 12);
    expect(st.p99).toBeCloseTo(3.97, 12);
    expect(st.min).toBe(1);
    expect(st.max).toBe(4);
  });

  it('gives count 0 and null statistics for no samples', () => {
    expect(summarize([])).toEqual({ count: 0, min: null, mean: null, p50: null, p90: null, p95: null, p99: null, max: null });
  });

  it('finds by selection the percentiles a full sort gives, with ties and any order', () => {
    // Few distinct values (gaps of equal steps tie often) and many: both exercise the partition.
    const value = fc.oneof(fc.integer({ min: 0, max: 4 }), fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }));
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 300 }), (samples) => {
        const sorted = [...samples].sort((a, b) => a - b);
        const st = summarize(samples);
        for (const p of [50, 90, 95, 99] as const) expect(st[`p${p}`]).toBe(percentile(sorted, p));
        expect(st.count).toBe(samples.length);
      }),
      { numRuns: 500 },
    );
  });
});
