import { describe, expect, it } from 'vitest';
import { buildReport, type RequestRecord } from './index.js';

const records: RequestRecord[] = [
  { id: 'r1', fairnessId: 'a', sloClass: 'interactive', arrivalMs: 0, firstTokenMs: 10, endMs: 30, tokenTimesMs: [10, 15, 30], outputTokens: 3, outcome: 'completed' },
  { id: 'r2', fairnessId: 'b', sloClass: 'batch', arrivalMs: 0, firstTokenMs: 20, endMs: 60, tokenTimesMs: [20, 40, 60], outputTokens: 3, outcome: 'completed' },
  { id: 'r3', fairnessId: 'a', sloClass: 'batch', arrivalMs: 5, endMs: 6, tokenTimesMs: [], outputTokens: 0, outcome: 'rejected', stage: 'admission', reason: 'quota' },
  { id: 'r4', fairnessId: 'b', sloClass: 'interactive', arrivalMs: 10, firstTokenMs: 50, tokenTimesMs: [50], outputTokens: 1, outcome: 'in_flight' },
];

describe('buildReport', () => {
  const report = buildReport(records);

  it('summarizes the whole run', () => {
    expect(report.window).toEqual({ startMs: 0, endMs: 60, durationMs: 60 });
    const o = report.overall;
    expect(o).toMatchObject({ requests: 4, completed: 2, outputTokens: 6 });
    expect(o.ttft).toMatchObject({ count: 3, p50: 20 }); // [10, 20, 40]
    expect(o.ttft.mean).toBeCloseTo(70 / 3, 12);
    expect(o.itl.count).toBe(4); // [5, 15, 20, 20]
    expect(o.itl.mean).toBe(15);
    expect(o.itl.p50).toBeCloseTo(17.5, 12);
    expect(o.e2e).toMatchObject({ count: 2, mean: 45, p50: 45 }); // [30, 60]
    expect(o.e2e.p90).toBeCloseTo(57, 12);
    expect(report.throughput.requestsPerSec).toBeCloseTo(2 / 0.06, 9);
    expect(report.throughput.outputTokensPerSec).toBeCloseTo(100, 9);
    expect(report.throughput).toEqual(o.throughput);
  });

  it('groups by SLO class', () => {
    expect(Object.keys(report.bySloClass)).toEqual(['batch', 'interactive']);
    const interactive = report.bySloClass.interactive!;
    expect(interactive).toMatchObject({ requests: 2, completed: 1, outputTokens: 3 });
    expect(interactive.ttft).toMatchObject({ count: 2, mean: 25 }); // [10, 40]
    expect(interactive.ttft.p90).toBeCloseTo(37, 12);
    expect(interactive.itl).toMatchObject({ count: 2, mean: 10 }); // [5, 15]
    expect(interactive.e2e).toMatchObject({ count: 1, mean: 30, p99: 30 });
    const batch = report.bySloClass.batch!;
    expect(batch).toMatchObject({ requests: 2, completed: 1, outputTokens: 3 });
    expect(batch.ttft).toMatchObject({ count: 1, mean: 20 });
    expect(batch.e2e).toMatchObject({ count: 1, mean: 60 });
    expect(batch.throughput.requestsPerSec).toBeCloseTo(1 / 0.06, 9); // over the run's window
  });

  it('groups by tenant', () => {
    expect(Object.keys(report.byFairnessId)).toEqual(['a', 'b']);
    const a = report.byFairnessId.a!;
    expect(a).toMatchObject({ requests: 2, completed: 1, outputTokens: 3 });
    expect(a.ttft).toMatchObject({ count: 1, mean: 10 });
    expect(a.itl).toMatchObject({ count: 2, mean: 10 });
    const b = report.byFairnessId.b!;
    expect(b.ttft).toMatchObject({ count: 2, mean: 30 }); // [20, 40]
    expect(b.itl).toMatchObject({ count: 2, mean: 20, p99: 20 });
    expect(b.e2e).toMatchObject({ count: 1, mean: 60 });
  });

  it('computes Jain over completed output tokens per tenant', () => {
    expect(report.jain).toEqual({ index: 1, outputTokensByFairnessId: { a: 3, b: 3 } });
    const starved: RequestRecord = { id: 'r5', fairnessId: 'c', sloClass: 'batch', arrivalMs: 1, outputTokens: 0, outcome: 'dropped', reason: 'deadline' };
    const skewed = buildReport([...records, starved]);
    expect(skewed.jain.outputTokensByFairnessId).toEqual({ a: 3, b: 3, c: 0 });
    expect(skewed.jain.index).toBeCloseTo(2 / 3, 12); // 36 / (3·18)
  });

  it('keeps balanced conservation books', () => {
    expect(report.conservation.check).toEqual({ balanced: true, requests: 4, accounted: 4, difference: 0, problems: [] });
    expect(report.conservation.books.rejected.byStage).toEqual({ admission: 1 });
    expect(buildReport(records, { expectedRequests: 5 }).conservation.check.balanced).toBe(false);
  });

  it('scores fitness only when given weights', () => {
    expect(report.fitness).toBeNull();
    // ttft p50 = 20 ms → 1/21; rps = 33.3… → 33.3/133.3 = 0.25
    const scored = buildReport(records, { fitnessWeights: { ttft_p50: 1, throughput_rps: 1 } });
    expect(scored.fitness).toBeCloseTo(1 / 21 + 0.25, 9);
    expect(() => buildReport(records, { fitnessWeights: { goodput: 1 } })).toThrow(/unknown fitness term 'goodput'/);
  });

  it('is plain JSON', () => {
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });

  it('reports an empty run', () => {
    const empty = buildReport([]);
    expect(empty.overall.ttft).toEqual({ count: 0, min: null, mean: null, p50: null, p90: null, p95: null, p99: null, max: null });
    expect(empty.throughput).toEqual({ requestsPerSec: 0, outputTokensPerSec: 0 });
    expect(empty.jain.index).toBe(1);
    expect(empty.conservation.check.balanced).toBe(true);
    expect(empty.bySloClass).toEqual({});
  });
});
