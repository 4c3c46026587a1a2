import { describe, expect, it } from 'vitest';
import { FITNESS_TERMS, UnknownFitnessTermError, fitness, fitnessTerm, latencyTerm, parseFitnessWeights, rpsTerm, tpsTerm } from './fitness.js';
import { goodput } from './goodput.js';
import { summarize } from './percentile.js';
import type { Summary } from './summary.js';

const summary: Summary = {
  requests: 4,
  completed: 4,
  outputTokens: 400,
  ttft: summarize([1, 1, 1, 1]), // 1 ms = 1000 µs everywhere
  itl: summarize([]),
  tpot: summarize([1]),
  e2e: summarize([3]),
  throughput: { requestsPerSec: 100, outputTokensPerSec: 30000 },
  goodput: { ...goodput([], { startMs: 0, endMs: 0, durationMs: 0 }), requestsPerSec: 300, targeted: 4, met: 3, attainment: 0.75 },
};

describe('fitness terms', () => {
  it('scores latency as 1/(1 + v/1000µs)', () => {
    expect(latencyTerm(0)).toBe(1);
    expect(latencyTerm(1)).toBe(0.5); // 1000 µs
    expect(latencyTerm(3)).toBe(0.25); // 3000 µs
    expect(latencyTerm(0.5)).toBeCloseTo(2 / 3, 12); // 500 µs
    expect(latencyTerm(null)).toBe(0);
  });

  it('scores throughput as rps/(rps+100) and tps/(tps+10000)', () => {
    expect(rpsTerm(100)).toBe(0.5);
    expect(rpsTerm(300)).toBe(0.75);
    expect(rpsTerm(0)).toBe(0);
    expect(tpsTerm(10000)).toBe(0.5);
    expect(tpsTerm(30000)).toBe(0.75);
  });

  it('reads the named statistic from the summary', () => {
    expect(fitnessTerm(summary, 'ttft_p99')).toBe(0.5);
    expect(fitnessTerm(summary, 'e2e_mean')).toBe(0.25);
    expect(fitnessTerm(summary, 'itl_p50')).toBe(0); // no ITL samples
    expect(fitnessTerm(summary, 'throughput_rps')).toBe(0.5);
    expect(fitnessTerm(summary, 'throughput_tps')).toBe(0.75);
    expect(fitnessTerm(summary, 'tpot_p50')).toBe(0.5);
    expect(fitnessTerm(summary, 'goodput_rps')).toBe(0.75);
    expect(fitnessTerm(summary, 'slo_attainment')).toBe(0.75);
  });

  it('lists 24 terms', () => {
    expect(FITNESS_TERMS).toHaveLength(24);
    expect(FITNESS_TERMS).toContain('itl_p95');
    expect(FITNESS_TERMS).toContain('tpot_p99');
  });
});

describe('parseFitnessWeights', () => {
  it('reads term:weight pairs, by sluice names or BLIS names', () => {
    expect(parseFitnessWeights('ttft_p99:1, throughput_rps=2')).toEqual({ ttft_p99: 1, throughput_rps: 2 });
    expect(parseFitnessWeights('p99_ttft:3,mean_e2e:1,throughput:2')).toEqual({ ttft_p99: 3, e2e_mean: 1, throughput_rps: 2 });
  });

  it('refuses a malformed pair, an unknown term, a bad weight or a term twice, naming it', () => {
    expect(() => parseFitnessWeights('ttft_p99')).toThrow(/'ttft_p99' is not term:weight/);
    expect(() => parseFitnessWeights('goodness:1')).toThrow(UnknownFitnessTermError);
    expect(() => parseFitnessWeights('ttft_p99:lots')).toThrow(/weight of 'ttft_p99'.*'lots'/);
    expect(() => parseFitnessWeights('p99_ttft:1,ttft_p99:2')).toThrow(/'ttft_p99' is given twice/);
  });
});

describe('fitness', () => {
  it('is the weighted sum of the terms', () => {
    expect(fitness(summary, { ttft_p99: 1, throughput_rps: 0.5 })).toBeCloseTo(0.75, 12); // 0.5 + 0.5·0.5
    expect(fitness(summary, { e2e_p50: 2, throughput_tps: 1 })).toBeCloseTo(1.25, 12); // 2·0.25 + 0.75
    expect(fitness(summary, {})).toBe(0);
  });

  it('throws on an unknown term, naming it and the allowed ones', () => {
    expect(() => fitness(summary, { ttft_p42: 1 })).toThrow(UnknownFitnessTermError);
    expect(() => fitness(summary, { ttft_p42: 1 })).toThrow(/'ttft_p42'.*allowed: .*ttft_p99.*throughput_tps/);
    expect(() => fitnessTerm(summary, 'latency')).toThrow(UnknownFitnessTermError);
  });

  it('throws on a non-finite weight', () => {
    expect(() => fitness(summary, { ttft_p99: Number.NaN })).toThrow(RangeError);
  });
});
