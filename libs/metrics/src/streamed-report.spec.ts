import { describe, expect, it } from 'vitest';
import { ExactSum } from './exact-sum.js';
import { summarize } from './percentile.js';
import { buildReport, type RequestRecord } from './index.js';
import { StreamedReport } from './streamed-report.js';
import { ValueCounts } from './value-counts.js';

/** mulberry32: a seeded source, so each case is reproducible. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const OUTCOMES = ['completed', 'completed', 'completed', 'rejected', 'dropped', 'failed', 'in_flight'] as const;

/** Records of every kind the summary reads: token times and given gaps, targets, cache counts, each outcome. */
function randomRecords(n: number, random: () => number): RequestRecord[] {
  const records: RequestRecord[] = [];
  for (let i = 0; i < n; i++) {
    const outcome = OUTCOMES[Math.floor(random() * OUTCOMES.length)]!;
    const arrivalMs = Math.round(random() * 1e6) / 1000;
    const tokens = outcome === 'rejected' ? 0 : Math.floor(random() * 6);
    const tokenTimesMs: number[] = [];
    let t = arrivalMs + random() * 50;
    for (let k = 0; k < tokens; k++) tokenTimesMs.push((t += Math.round(random() * 20_000) / 1000));
    const base = { id: `r${i}`, fairnessId: `tenant-${i % 3}`, sloClass: i % 4 === 0 ? 'batch' : 'interactive', arrivalMs, outputTokens: tokens, outcome };
    const timed = tokens === 0 ? {} : { firstTokenMs: tokenTimesMs[0]!, ...(random() < 0.2 ? { itlMs: tokenTimesMs.slice(1).map((x, k) => x - tokenTimesMs[k]!) } : { tokenTimesMs }) };
    records.push({
      ...base,
      ...timed,
      ...(outcome === 'in_flight' ? {} : { endMs: (tokenTimesMs.at(-1) ?? arrivalMs) + 1 }),
      ...(random() < 0.5 ? { slo: { ttftMs: 40, ...(random() < 0.5 ? { tpotMs: 10 } : {}), ...(random() < 0.3 ? { e2eMs: 80 } : {}) } } : {}),
      ...(outcome === 'completed' && random() < 0.7 ? { cachedTokens: Math.floor(random() * 3) * 16 } : {}),
      ...(outcome === 'rejected' ? { stage: random() < 0.5 ? 'admission' : 'flow-control', reason: 'quota' } : {}),
      ...(outcome === 'dropped' || outcome === 'failed' ? { reason: random() < 0.5 ? 'ttl' : 'worker_lost' } : {}),
    });
  }
  return records;
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe('StreamedReport', () => {
  it.each([1, 2, 3, 4, 5])('equals buildReport field for field, the records in another order (seed %i)', (seed) => {
    const random = seeded(seed);
    const records = randomRecords(400, random);
    const kept = buildReport(records, { expectedRequests: records.length, fitnessWeights: { ttft_p99: 2, goodput_rps: 1 } });
    const streamed = new StreamedReport({ fitnessWeights: { ttft_p99: 2, goodput_rps: 1 } });
    for (const r of shuffled(records, random)) streamed.add(r);
    const report = streamed.report(records.length);
    expect(report).toEqual(kept);
    // toEqual reads -0 and 0 alike; the JSON written is what must not differ.
    expect(JSON.stringify(report)).toBe(JSON.stringify(kept));
  });

  it('gives an empty run the kept report (no window, null statistics)', () => {
    const streamed = new StreamedReport();
    expect(streamed.report(0)).toEqual(buildReport([], { expectedRequests: 0 }));
  });

  it('takes no record after its report', () => {
    const streamed = new StreamedReport();
    streamed.report(1);
    expect(() => streamed.add(randomRecords(1, seeded(9))[0]!)).toThrow(/no records after/);
  });
});

describe('ExactSum', () => {
  it('rounds once: ten times 0.1 is 1, where a running sum gives 0.9999999999999999', () => {
    const sum = new ExactSum();
    let running = 0;
    for (let i = 0; i < 10; i++) {
      sum.add(0.1);
      running += 0.1;
    }
    expect(running).not.toBe(1);
    expect(sum.value()).toBe(1);
  });

  it('keeps what a large term would swallow', () => {
    const sum = new ExactSum();
    for (const x of [1e16, 1, -1e16]) sum.add(x);
    expect(sum.value()).toBe(1);
  });

  it('adds value × count exactly, as count additions of the value', () => {
    const byTimes = new ExactSum();
    const oneByOne = new ExactSum();
    byTimes.addTimes(0.1, 1_000_003);
    for (let i = 0; i < 1_000_003; i++) oneByOne.add(0.1);
    expect(byTimes.value()).toBe(oneByOne.value());
  });
});

describe('ValueCounts', () => {
  it('gives the statistics of the sorted values while the distinct values fit', () => {
    const random = seeded(7);
    const values = Array.from({ length: 5_000 }, () => Math.round(random() * 200) / 8);
    const counts = new ValueCounts();
    for (const v of values) counts.add(v);
    expect(counts.summary()).toEqual(summarize(values));
  });

  it('past its cap reads percentiles from log buckets within their relative error, says so, and keeps count, min, max and mean exact', () => {
    const random = seeded(11);
    const values = Array.from({ length: 20_000 }, () => 0.5 + random() * 100);
    const counts = new ValueCounts(1_000);
    for (const v of values) counts.add(v);
    const exact = summarize(values);
    const approximate = counts.summary();
    expect(approximate.approximate).toEqual({ relativeError: 0.01 });
    expect({ count: approximate.count, min: approximate.min, max: approximate.max, mean: approximate.mean }).toEqual({ count: exact.count, min: exact.min, max: exact.max, mean: exact.mean });
    for (const p of ['p50', 'p90', 'p95', 'p99'] as const) expect(Math.abs(approximate[p]! - exact[p]!) / exact[p]!).toBeLessThanOrEqual(0.01);
  });
});
