import { describe, expect, it } from 'vitest';
import type { RunRecord } from '@sluice/metrics';
import { cdf, concurrency, flowQueueInterval, latencyOverTime, loadPerWorker, outcomesPerSecond, queuePerPriority, ttftCdfBySloClass, workerInterval } from './series.js';

const rec = (over: Partial<RunRecord> & Pick<RunRecord, 'id' | 'arrivalMs' | 'outcome'>): RunRecord => ({
  fairnessId: 't',
  sloClass: 'c',
  outputTokens: 0,
  status: 200,
  priority: 0,
  attempts: 1,
  ...over,
});

describe('cdf', () => {
  it('steps from (min, 0) through each distinct value at the fraction ≤ it', () => {
    expect(cdf([30, 10, 20, 10])).toEqual([
      { x: 10, y: 0 },
      { x: 10, y: 0.5 },
      { x: 20, y: 0.75 },
      { x: 30, y: 1 },
    ]);
  });
  it('is empty without samples', () => {
    expect(cdf([])).toEqual([]);
  });
});

describe('ttftCdfBySloClass', () => {
  it('one series per class, sorted, over requests with a first token', () => {
    const series = ttftCdfBySloClass([
      rec({ id: 'a', sloClass: 'z', arrivalMs: 0, firstTokenMs: 100, outcome: 'completed' }),
      rec({ id: 'b', sloClass: 'z', arrivalMs: 50, firstTokenMs: 100, outcome: 'failed' }),
      rec({ id: 'c', sloClass: 'a', arrivalMs: 10, firstTokenMs: 40, outcome: 'completed' }),
      rec({ id: 'd', sloClass: 'y', arrivalMs: 0, outcome: 'rejected' }),
    ]);
    expect(series).toEqual([
      { name: 'a', points: [{ x: 30, y: 0 }, { x: 30, y: 1 }] },
      { name: 'z', points: [{ x: 50, y: 0 }, { x: 50, y: 0.5 }, { x: 100, y: 1 }] },
    ]);
  });
});

describe('latencyOverTime', () => {
  it('TTFT and E2E points at arrival seconds; E2E only for completed requests', () => {
    const series = latencyOverTime([
      rec({ id: 'b', arrivalMs: 2000, firstTokenMs: 2100, endMs: 2300, outcome: 'failed' }),
      rec({ id: 'a', arrivalMs: 500, firstTokenMs: 520, endMs: 900, outcome: 'completed' }),
    ]);
    expect(series).toEqual([
      { name: 'TTFT', points: [{ x: 0.5, y: 20 }, { x: 2, y: 100 }] },
      { name: 'E2E', points: [{ x: 0.5, y: 400 }] },
    ]);
  });
});

describe('outcomesPerSecond', () => {
  it('counts endings per one-second bucket per outcome, closing at 0', () => {
    const series = outcomesPerSecond([
      rec({ id: '1', arrivalMs: 0, endMs: 500, outcome: 'completed' }),
      rec({ id: '2', arrivalMs: 0, endMs: 1200, outcome: 'completed' }),
      rec({ id: '3', arrivalMs: 0, endMs: 1700, outcome: 'rejected' }),
      rec({ id: '4', arrivalMs: 0, endMs: 3000, outcome: 'completed' }),
      rec({ id: '5', arrivalMs: 0, outcome: 'in_flight' }),
    ]);
    expect(series).toEqual([
      { name: 'completed', points: [{ x: 0, y: 1 }, { x: 1, y: 1 }, { x: 2, y: 0 }, { x: 3, y: 1 }, { x: 4, y: 0 }] },
      { name: 'rejected', points: [{ x: 0, y: 0 }, { x: 1, y: 1 }, { x: 2, y: 0 }, { x: 3, y: 0 }, { x: 4, y: 0 }] },
    ]);
  });
  it('is empty when nothing ended', () => {
    expect(outcomesPerSecond([rec({ id: '1', arrivalMs: 0, outcome: 'in_flight' })])).toEqual([]);
  });
});

describe('concurrency', () => {
  it('counts overlapping intervals as a step series in seconds', () => {
    // [0,1000) [500,1500) [1000,2000) [3000,3000) (empty): 1 at 0, 2 at 0.5, 2 at 1 (one ends, one starts), 1 at 1.5, 0 at 2.
    expect(
      concurrency([
        { startMs: 0, endMs: 1000 },
        { startMs: 500, endMs: 1500 },
        { startMs: 1000, endMs: 2000 },
        { startMs: 3000, endMs: 3000 },
      ]),
    ).toEqual([
      { x: 0, y: 1 },
      { x: 0.5, y: 2 },
      { x: 1.5, y: 1 },
      { x: 2, y: 0 },
    ]);
  });
  it('stacks identical intervals', () => {
    expect(concurrency([{ startMs: 100, endMs: 200 }, { startMs: 100, endMs: 200 }])).toEqual([{ x: 0.1, y: 2 }, { x: 0.2, y: 0 }]);
  });
});

describe('worker and queue intervals', () => {
  const timings = { admissionMs: 2, flowQueueMs: 30, routingMs: 3, workerQueueMs: 10, prefillMs: 50, decodeMs: 100 };
  it('worker interval: arrival + admission + flow queue + routing to end, completed only', () => {
    expect(workerInterval(rec({ id: 'a', arrivalMs: 1000, endMs: 1200, outcome: 'completed', instance: 'w', timings }))).toEqual({ startMs: 1035, endMs: 1200 });
    expect(workerInterval(rec({ id: 'a', arrivalMs: 1000, endMs: 1200, outcome: 'completed', instance: 'w' }))).toEqual({ startMs: 1000, endMs: 1200 });
    expect(workerInterval(rec({ id: 'a', arrivalMs: 1000, endMs: 1200, outcome: 'failed', instance: 'w', timings }))).toBeUndefined();
  });
  it('queue interval: [arrival + admission, + flow queue], completed only', () => {
    expect(flowQueueInterval(rec({ id: 'a', arrivalMs: 1000, endMs: 1200, outcome: 'completed', timings }))).toEqual({ startMs: 1002, endMs: 1032 });
    expect(flowQueueInterval(rec({ id: 'a', arrivalMs: 1000, endMs: 1005, outcome: 'rejected', timings }))).toBeUndefined();
  });
  it('loadPerWorker: one step series per instance', () => {
    const t = { admissionMs: 0, flowQueueMs: 0, routingMs: 0 };
    const series = loadPerWorker([
      rec({ id: '1', arrivalMs: 0, endMs: 1000, outcome: 'completed', instance: 'w2', timings: t }),
      rec({ id: '2', arrivalMs: 0, endMs: 2000, outcome: 'completed', instance: 'w1', timings: t }),
      rec({ id: '3', arrivalMs: 500, endMs: 1500, outcome: 'completed', instance: 'w1', timings: t }),
      rec({ id: '4', arrivalMs: 500, endMs: 600, outcome: 'rejected' }),
    ]);
    expect(series).toEqual([
      { name: 'w1', points: [{ x: 0, y: 1 }, { x: 0.5, y: 2 }, { x: 1.5, y: 1 }, { x: 2, y: 0 }] },
      { name: 'w2', points: [{ x: 0, y: 1 }, { x: 1, y: 0 }] },
    ]);
  });
  it('queuePerPriority: one series per band, numeric order, bands that never queued left out', () => {
    const q = (flowQueueMs: number) => ({ admissionMs: 0, flowQueueMs });
    const series = queuePerPriority([
      rec({ id: '1', arrivalMs: 0, endMs: 5000, outcome: 'completed', priority: 10, timings: q(1000) }),
      rec({ id: '2', arrivalMs: 0, endMs: 5000, outcome: 'completed', priority: 2, timings: q(500) }),
      rec({ id: '3', arrivalMs: 250, endMs: 5000, outcome: 'completed', priority: 2, timings: q(500) }),
      rec({ id: '4', arrivalMs: 0, endMs: 5000, outcome: 'completed', priority: 7, timings: q(0) }),
    ]);
    expect(series).toEqual([
      { name: 'priority 2', points: [{ x: 0, y: 1 }, { x: 0.25, y: 2 }, { x: 0.5, y: 1 }, { x: 0.75, y: 0 }] },
      { name: 'priority 10', points: [{ x: 0, y: 1 }, { x: 1, y: 0 }] },
    ]);
  });
});
