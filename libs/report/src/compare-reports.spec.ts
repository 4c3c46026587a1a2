import { describe, expect, it } from 'vitest';
import { buildReport, type RequestRecord } from '@sluice/metrics';
import { compareChaos, compareGoodputByGroup, compareReports, comparisonTable } from './compare-reports.js';

const completed = (id: string, ttft: number): RequestRecord => ({ id, fairnessId: 't', sloClass: 'standard', arrivalMs: 0, firstTokenMs: ttft, endMs: 1000, tokenTimesMs: [ttft], outputTokens: 1, outcome: 'completed' });

describe('compareReports', () => {
  it('puts each metric side by side with its change against the first report', () => {
    const a = buildReport([completed('1', 100), completed('2', 100)]);
    const b = buildReport([completed('1', 150), { id: '2', fairnessId: 't', sloClass: 'standard', arrivalMs: 0, endMs: 5, outputTokens: 0, outcome: 'rejected', reason: 'flow_capacity' }]);
    const rows = compareReports([a, b]);
    const row = (name: string) => rows.find((r) => r.metric === name)!;
    expect(row('completed')).toEqual({ metric: 'completed', values: [2, 1], deltasPct: [0, -50] });
    expect(row('rejected').values).toEqual([0, 1]);
    expect(row('rejected').deltasPct[1]).toBeNull(); // against 0: no percentage
    expect(row('TTFT mean ms').deltasPct[1]).toBeCloseTo(50, 9);
    const table = comparisonTable(['a', 'b'], rows);
    expect(table).toMatch(/TTFT mean ms\s+100\s+150 \(\+50\.0%\)/);
  });
});

describe('compareChaos', () => {
  it('lines up the migrations of a live chaos run and its twin, by reason', () => {
    const live = { chaos: { migrations: { total: 4, byReason: { worker_lost: 4 } } } };
    const twin = { twinChaos: { migrations: { total: 6, byReason: { worker_lost: 5, next_unavailable: 1 } } } };
    expect(compareChaos([live, twin])).toEqual([
      { metric: 'migrations', values: [4, 6], deltasPct: [0, 50] },
      { metric: '  next_unavailable', values: [0, 1], deltasPct: [null, null] },
      { metric: '  worker_lost', values: [4, 5], deltasPct: [0, 25] },
    ]);
  });

  it('adds nothing when no report is a chaos run', () => {
    expect(compareChaos([{}, {}])).toEqual([]);
  });
});

describe('goodput in a comparison', () => {
  const targeted = (id: string, ttft: number, sloClass: string): RequestRecord => ({ ...completed(id, ttft), sloClass, slo: { ttftMs: 120 } });

  it('compares goodput and attainment overall, and per class and tenant where a request had a target', () => {
    const fcfs = buildReport([targeted('1', 100, 'critical'), targeted('2', 150, 'critical'), completed('3', 100)]);
    const edf = buildReport([targeted('1', 100, 'critical'), targeted('2', 110, 'critical'), completed('3', 200)]);
    const rows = [...compareReports([fcfs, edf]), ...compareGoodputByGroup([fcfs, edf])];
    const row = (name: string) => rows.find((r) => r.metric === name)!;
    expect(row('SLO attainment %')).toEqual({ metric: 'SLO attainment %', values: [50, 100], deltasPct: [0, 100] });
    expect(row('goodput req/s').values).toEqual([2, 3]); // 2 and 3 good requests over 1 s
    expect(row('class critical attainment %').values).toEqual([50, 100]);
    expect(row('tenant t attainment %').values).toEqual([50, 100]);
    // The standard class had no target: nothing to compare.
    expect(rows.find((r) => r.metric.startsWith('class standard'))).toBeUndefined();
    expect(row('TTFT max ms').values).toEqual([150, 200]);
  });
});
