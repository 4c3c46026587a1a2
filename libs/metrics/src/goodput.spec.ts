import { describe, expect, it } from 'vitest';
import { goodput } from './goodput.js';
import { requestTpotMs, tpotSamples } from './samples.js';
import type { RequestRecord } from './types.js';

const WINDOW = { startMs: 0, endMs: 2000, durationMs: 2000 };

/** A completed request that arrived at 0 with tokens at the given times (ms), ending at the last. */
function served(id: string, tokenTimesMs: number[], slo?: RequestRecord['slo']): RequestRecord {
  return { id, fairnessId: 't', sloClass: 'standard', arrivalMs: 0, firstTokenMs: tokenTimesMs[0]!, endMs: tokenTimesMs.at(-1)!, tokenTimesMs, outputTokens: tokenTimesMs.length, outcome: 'completed', ...(slo ? { slo } : {}) };
}

describe('goodput', () => {
  it('counts a request good when it completed within every target it had', () => {
    const records: RequestRecord[] = [
      served('a', [100, 120, 140], { ttftMs: 100, tpotMs: 20, e2eMs: 140 }), // exactly at each target: met
      served('b', [101, 110], { ttftMs: 100 }), // TTFT 1 ms late
      served('c', [50, 100, 150], { ttftMs: 100, tpotMs: 40 }), // TPOT 50 > 40
      served('d', [50, 60], { e2eMs: 59 }), // E2E 60 > 59
      served('e', [500, 510]), // no target: good, not in attainment
      { id: 'f', fairnessId: 't', sloClass: 'standard', arrivalMs: 0, endMs: 1, outputTokens: 0, outcome: 'rejected', slo: { ttftMs: 1000 } },
      { id: 'g', fairnessId: 't', sloClass: 'standard', arrivalMs: 0, endMs: 1, outputTokens: 0, outcome: 'dropped' },
    ];
    const g = goodput(records, WINDOW);
    expect(g.good).toBe(2); // a, e
    expect(g.requestsPerSec).toBe(1); // 2 good in 2 s
    expect(g.targeted).toBe(5); // a, b, c, d, f
    expect(g.met).toBe(1);
    expect(g.attainment).toBeCloseTo(1 / 5, 12);
    // Each dimension over the requests that had it: a met TTFT; b late; c met; f rejected.
    expect(g.ttft).toEqual({ targeted: 4, met: 2, attainment: 0.5 });
    expect(g.tpot).toEqual({ targeted: 2, met: 1, attainment: 0.5 });
    expect(g.e2e).toEqual({ targeted: 2, met: 1, attainment: 0.5 });
  });

  it('has null attainment without targets, and no goodput over an empty window', () => {
    const g = goodput([served('a', [10])], { startMs: 0, endMs: 0, durationMs: 0 });
    expect(g).toMatchObject({ good: 1, requestsPerSec: 0, targeted: 0, attainment: null, ttft: { targeted: 0, met: 0, attainment: null } });
  });
});

describe('TPOT', () => {
  it('is the mean gap after the first token; 0 with one token; from itlMs when given', () => {
    expect(requestTpotMs(served('a', [100, 130, 190]))).toBe(45);
    expect(requestTpotMs(served('a', [100]))).toBe(0);
    expect(requestTpotMs({ ...served('a', [100]), itlMs: [10, 30] })).toBe(20);
  });

  it('samples completed requests with two tokens or more', () => {
    const failed: RequestRecord = { ...served('f', [1, 2, 3]), outcome: 'failed' };
    expect(tpotSamples([served('a', [0, 10]), served('b', [5]), failed])).toEqual([10]);
  });
});
