import { describe, expect, it } from 'vitest';
import { runWindow, throughput } from './throughput.js';
import { requestRecord as rec } from './testing/records.js';

describe('throughput', () => {
  it('divides completed requests and their tokens by first arrival → last completion', () => {
    const records = [
      rec({ id: 'a', arrivalMs: 1000, endMs: 3000, outputTokens: 10 }),
      rec({ id: 'b', arrivalMs: 1500, endMs: 2000, outputTokens: 30 }),
      rec({ id: 'c', arrivalMs: 500, endMs: 4000, outputTokens: 5, outcome: 'failed' }),
    ];
    const w = runWindow(records);
    expect(w).toEqual({ startMs: 500, endMs: 3000, durationMs: 2500 });
    const t = throughput(records, w);
    expect(t.requestsPerSec).toBeCloseTo(0.8, 12); // 2 / 2.5 s
    expect(t.outputTokensPerSec).toBeCloseTo(16, 12); // 40 / 2.5 s
  });

  it('is 0 without completions or records', () => {
    const records = [rec({ id: 'a', arrivalMs: 10, outcome: 'in_flight' })];
    expect(runWindow(records)).toEqual({ startMs: 10, endMs: 10, durationMs: 0 });
    expect(throughput(records, runWindow(records))).toEqual({ requestsPerSec: 0, outputTokensPerSec: 0 });
    expect(runWindow([])).toEqual({ startMs: 0, endMs: 0, durationMs: 0 });
  });
});
