import { describe, expect, it } from 'vitest';
import { summarize } from './percentile.js';
import { e2eSamples, itlSamples, requestItls, ttftSamples } from './samples.js';
import { requestRecord as rec } from './testing/records.js';

describe('ITL', () => {
  it('takes the gaps between consecutive token times, or itlMs when given', () => {
    expect(requestItls(rec({ id: 'a', tokenTimesMs: [100, 110, 130] }))).toEqual([10, 20]);
    expect(requestItls(rec({ id: 'b', itlMs: [5], tokenTimesMs: [0, 100] }))).toEqual([5]);
    expect(requestItls(rec({ id: 'c', tokenTimesMs: [200] }))).toEqual([]);
    expect(requestItls(rec({ id: 'd' }))).toEqual([]);
  });

  it('pools every gap of every request', () => {
    const records = [
      rec({ id: 'a', tokenTimesMs: [100, 110, 130] }),
      rec({ id: 'b', itlMs: [5], outcome: 'failed' }),
      rec({ id: 'c', tokenTimesMs: [200] }),
    ];
    expect([...itlSamples(records)]).toEqual([10, 20, 5]);
    const st = summarize(itlSamples(records));
    expect(st.count).toBe(3);
    expect(st.mean).toBeCloseTo(35 / 3, 12);
    expect(st.p50).toBe(10); // sorted [5, 10, 20], rank 1
    expect(st.p90).toBeCloseTo(18, 12); // rank 1.8: 10 + 0.8·10
  });
});

describe('TTFT', () => {
  it('counts only requests that got a first token, whatever their outcome', () => {
    const records = [
      rec({ id: 'a', arrivalMs: 0, firstTokenMs: 50 }),
      rec({ id: 'b', arrivalMs: 10, firstTokenMs: 40, outcome: 'in_flight' }),
      rec({ id: 'c', arrivalMs: 20, outcome: 'rejected', endMs: 21 }),
    ];
    expect(ttftSamples(records)).toEqual([50, 30]);
  });
});

describe('E2E', () => {
  it('counts completed requests only', () => {
    const records = [
      rec({ id: 'a', arrivalMs: 0, endMs: 100 }),
      rec({ id: 'b', arrivalMs: 10, endMs: 500, outcome: 'failed' }),
      rec({ id: 'c', arrivalMs: 10, endMs: 12, outcome: 'dropped' }),
      rec({ id: 'd', arrivalMs: 20, endMs: 70 }),
    ];
    expect(e2eSamples(records)).toEqual([100, 50]);
  });
});
