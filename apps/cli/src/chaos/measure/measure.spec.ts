import { describe, expect, it } from 'vitest';
import type { RunRecord } from '@sluice/metrics';
import { counterIncrease, increaseBy } from './counter-increase.js';
import { detect } from './detection.js';
import { recoveryMs } from './recovery.js';
import { baselineTtftP99 } from './ttft-baseline.js';

/** A request arriving at `arrivalMs` whose first token took `ttft` ms (undefined: none). */
function req(arrivalMs: number, ttft: number | undefined, over: Partial<RunRecord> = {}): RunRecord {
  return {
    id: `r${arrivalMs}`,
    fairnessId: 't',
    sloClass: 'standard',
    priority: 3,
    arrivalMs,
    ...(ttft === undefined ? {} : { firstTokenMs: arrivalMs + ttft }),
    endMs: arrivalMs + (ttft ?? 0) + 200,
    outputTokens: 8,
    outcome: 'completed',
    status: 200,
    attempts: 1,
    ...over,
  };
}

/** One request every 50 ms from `from` to `to` (exclusive), each with TTFT `ttft(t)`. */
function steady(from: number, to: number, ttft: (t: number) => number | undefined, over: (t: number) => Partial<RunRecord> = () => ({})): RunRecord[] {
  const out: RunRecord[] = [];
  for (let t = from; t < to; t += 50) out.push(req(t, ttft(t), over(t)));
  return out;
}

describe('pre-fault baseline', () => {
  it('is the TTFT p99 of the requests arriving in the window before the fault', () => {
    // The last two arrived before the fault but got their first token after it: they measure the fault.
    const records = [...steady(0, 5_000, (t) => (t < 2_000 ? 500 : 100 + (t % 1000) / 100)), req(4_990, 900), req(4_995, 20), req(5_000, 900)];
    // Window [1 000, 5 000) from a 4 s lookback; the slow ones before 2 000 are in it.
    expect(baselineTtftP99(records, 5_000, { lookbackMs: 4_000, notBeforeMs: 0, minSamples: 5 })).toBe(500);
    // The previous fault's end bounds the window.
    expect(baselineTtftP99(records, 5_000, { lookbackMs: 4_000, notBeforeMs: 2_000, minSamples: 5 })).toBeCloseTo(109.5, 5);
    expect(baselineTtftP99(records, 5_000, { lookbackMs: 100, notBeforeMs: 0, minSamples: 5 })).toBeNull();
  });
});

describe('time to detect', () => {
  const base = steady(0, 10_000, () => 100);

  it('is the first failed request after the start, as the client saw it end', () => {
    const records = [...base, req(3_100, undefined, { outcome: 'failed', reason: 'worker_lost', endMs: 3_400 }), req(2_000, undefined, { outcome: 'failed', reason: 'timeout', endMs: 2_900 })];
    expect(detect({ startMs: 3_000, untilMs: Infinity, records, migrations: [], slowTtftMs: null })).toEqual({ atMs: 3_400, signal: 'request failed (worker_lost)' });
  });

  it('is the moment a first token is overdue, whether it came later or never; rejections do not count', () => {
    const records = [...base, req(3_050, 900), req(3_000, undefined, { outcome: 'rejected', reason: 'flow_capacity', endMs: 3_001 })];
    expect(detect({ startMs: 3_000, untilMs: Infinity, records, migrations: [], slowTtftMs: 150 })).toEqual({ atMs: 3_200, signal: 'first token later than 150 ms' });
  });

  it('is the first poll that saw the migrations counter rise, not a fall (a restarted gateway)', () => {
    const migrations = [
      { tMs: 2_900, value: 4 },
      { tMs: 3_150, value: 0 },
      { tMs: 3_400, value: 0 },
      { tMs: 3_650, value: 2 },
    ];
    expect(detect({ startMs: 3_000, untilMs: Infinity, records: base, migrations, slowTtftMs: 150 })).toEqual({ atMs: 3_650, signal: 'gateway migrated a request' });
  });

  it('is the moment a stream had been silent too long, mid-stream or before a failure', () => {
    const frozen = req(2_900, 50, { tokenTimesMs: [2_950, 2_960, 2_970, 4_500, 4_510] });
    expect(detect({ startMs: 3_000, untilMs: Infinity, records: [...base, frozen], migrations: [], slowTtftMs: 150 })).toEqual({ atMs: 3_120, signal: 'a stream stalled for more than 150 ms' });
    const broken = req(2_900, 50, { tokenTimesMs: [2_950, 3_000], outcome: 'failed', reason: 'stream_broken', endMs: 5_000 });
    expect(detect({ startMs: 3_000, untilMs: Infinity, records: [...base, broken], migrations: [], slowTtftMs: 150 })?.atMs).toBe(3_150);
    // A silence that was over before the fault is not its effect.
    const earlier = req(2_000, 50, { tokenTimesMs: [2_050, 2_600] });
    expect(detect({ startMs: 3_000, untilMs: Infinity, records: [...base, earlier], migrations: [], slowTtftMs: 150 })).toBeNull();
  });

  it('ignores what comes after the next fault starts; nothing seen is null', () => {
    const records = [...base, req(6_000, undefined, { outcome: 'failed', reason: 'worker_lost', endMs: 6_100 })];
    expect(detect({ startMs: 3_000, untilMs: 6_000, records, migrations: [], slowTtftMs: 150 })).toBeNull();
  });
});

describe('time to recover', () => {
  it('is the start of the first 1 s window after the anchor with TTFT p99 within 20% and no failure', () => {
    // Slow (400 ms) until 4 000, a failure at 4 300, normal (100 ms) after.
    const records = steady(3_000, 9_000, (t) => (t < 4_000 ? 400 : 100), (t) => (t === 4_300 ? { outcome: 'failed', reason: 'worker_lost' } : {}));
    expect(recoveryMs(records, 3_000, 100)).toBe(1_400);
    expect(recoveryMs(records, 6_000, 100)).toBe(0);
  });

  it('passes over windows with too few samples and is null when never back', () => {
    expect(recoveryMs(steady(3_000, 9_000, () => 130), 3_000, 100)).toBeNull();
    expect(recoveryMs([req(3_000, 100), req(3_500, 100)], 3_000, 100)).toBeNull();
    expect(recoveryMs([], 3_000, 100)).toBeNull();
  });
});

describe('counter increase', () => {
  it('adds the rises and, after a fall (a restart from 0), the whole new value', () => {
    expect(counterIncrease([2, 5, 5, 1, 3])).toBe(3 + 1 + 2);
    expect(counterIncrease([7])).toBe(0);
    expect(increaseBy([{ worker_lost: 1 }, { worker_lost: 3, stage_lost: 1 }, {}])).toEqual({ worker_lost: 2, stage_lost: 1 });
  });
});
