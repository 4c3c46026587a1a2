import { describe, expect, it } from 'vitest';
import type { Param, ParamSet } from '../parameter.js';
import { runStudy, type StudySettings } from '../study.js';
import { TpeSampler, belowCount, rampWeights } from './tpe.sampler.js';

/** Branin on x1 ∈ [−5, 10], x2 ∈ [0, 15]: minimum 0.397887 at (−π, 12.275), (π, 2.275), (9.42478, 2.475). */
function branin(p: ParamSet): number {
  const x1 = p.x1 as number;
  const x2 = p.x2 as number;
  const b = 5.1 / (4 * Math.PI ** 2);
  const c = 5 / Math.PI;
  const t = 1 / (8 * Math.PI);
  return (x2 - b * x1 * x1 + c * x1 - 6) ** 2 + 10 * (1 - t) * Math.cos(x1) + 10;
}
const BRANIN_MIN = 0.397887;
const BRANIN: Param[] = [
  { kind: 'range', path: 'x1', min: -5, max: 10, log: false, int: false },
  { kind: 'range', path: 'x2', min: 0, max: 15, log: false, int: false },
];

/** Σ (x_i − c_i)² over d dimensions in [−5, 5], the minimum 0 at an off-centre point c. */
function shiftedQuadratic(d: number): { params: Param[]; f: (p: ParamSet) => number } {
  const centre = Array.from({ length: d }, (_, i) => 2.5 - (i % 3) * 1.7);
  return {
    params: centre.map((_, i) => ({ kind: 'range', path: `x${i}`, min: -5, max: 5, log: false, int: false })),
    f: (p) => centre.reduce((sum, c, i) => sum + ((p[`x${i}`] as number) - c) ** 2, 0),
  };
}

async function bestOf(params: Param[], f: (p: ParamSet) => number, seed: number, sampler: 'tpe' | 'random', trials: number): Promise<number> {
  const settings: StudySettings = { params, directions: ['minimize'], constraints: [], trials, batchSize: 1, seed, sampler };
  const done = await runStudy(settings, async (batch) => batch.map((t) => ({ objectives: [f(t.params)], constraints: [], durationMs: 0 })));
  return Math.min(...done.map((t) => t.objectives[0]!));
}

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];

describe('TPE against random search of the same budget (fixed seeds)', () => {
  const cases: [string, Param[], (p: ParamSet) => number, number][] = [
    ['Branin (2-d)', BRANIN, branin, 60],
    ['shifted quadratic, 2-d', ...(Object.values(shiftedQuadratic(2)) as [Param[], (p: ParamSet) => number]), 50],
    ['shifted quadratic, 4-d', ...(Object.values(shiftedQuadratic(4)) as [Param[], (p: ParamSet) => number]), 80],
    ['shifted quadratic, 6-d', ...(Object.values(shiftedQuadratic(6)) as [Param[], (p: ParamSet) => number]), 100],
  ];
  it.each(cases)('%s: TPE finds a lower minimum on most seeds and on the median', async (_, params, f, trials) => {
    const tpe: number[] = [];
    const random: number[] = [];
    for (const seed of SEEDS) {
      tpe.push(await bestOf(params, f, seed, 'tpe', trials));
      random.push(await bestOf(params, f, seed, 'random', trials));
    }
    const wins = tpe.filter((v, i) => v < random[i]!).length;
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    expect(wins).toBeGreaterThanOrEqual(6);
    expect(median(tpe)).toBeLessThan(median(random));
  });

  it('gets close to Branin’s minimum in 60 trials', async () => {
    const best = await bestOf(BRANIN, branin, 11, 'tpe', 60);
    expect(best).toBeLessThan(BRANIN_MIN + 0.5);
  });
});

describe('the sampler’s pieces (Optuna’s defaults)', () => {
  it('γ(n) = min(⌈n/10⌉, 25)', () => {
    expect([1, 10, 11, 100, 250, 1000].map(belowCount)).toEqual([1, 1, 2, 10, 25, 25]);
  });

  it('weights: 1 each up to 25 trials, then a ramp from 1/n to 1 for the older ones', () => {
    expect(rampWeights(3)).toEqual([1, 1, 1]);
    const w = rampWeights(35);
    expect(w).toHaveLength(35);
    expect(w[0]).toBeCloseTo(1 / 35);
    expect(w[9]).toBeCloseTo(1);
    expect(w.slice(10).every((v) => v === 1)).toBe(true);
    expect(w.slice(0, 10).every((v, i, a) => i === 0 || v > a[i - 1]!)).toBe(true);
  });

  it('keeps every proposal inside its range, whole for int, a listed value for choices', () => {
    const params: Param[] = [
      { kind: 'range', path: 'a', min: 10, max: 10_000, log: true, int: false },
      { kind: 'range', path: 'b', min: 1, max: 6, log: false, int: true },
      { kind: 'range', path: 'c', min: 1, max: 64, log: true, int: true },
      { kind: 'choice', path: 'd', choices: ['x', 'y', 'z'] },
    ];
    const sampler = new TpeSampler({ params, directions: ['minimize'], seed: 3, startupTrials: 5, candidates: 24 });
    const finished = [];
    for (let n = 0; n < 40; n++) {
      const p = sampler.suggest(n, finished, []);
      expect(p.a).toBeGreaterThanOrEqual(10);
      expect(p.a).toBeLessThanOrEqual(10_000);
      expect(Number.isInteger(p.b) && (p.b as number) >= 1 && (p.b as number) <= 6).toBe(true);
      expect(Number.isInteger(p.c) && (p.c as number) >= 1 && (p.c as number) <= 64).toBe(true);
      expect(['x', 'y', 'z']).toContain(p.d);
      finished.push({ number: n, params: p, objectives: [Math.abs(Math.log((p.a as number) / 300)) + Math.abs((p.b as number) - 4) + (p.d === 'y' ? 0 : 1)], violation: 0 });
    }
    // The model learns the choice that costs nothing: the last proposals take it well above chance (5 of 15).
    expect(finished.slice(-15).filter((t) => t.params.d === 'y').length).toBeGreaterThanOrEqual(8);
  });

  it('spreads a batch: the constant liar keeps later points of a batch off the earlier ones', () => {
    const params = BRANIN;
    const sampler = new TpeSampler({ params, directions: ['minimize'], seed: 9, startupTrials: 10, candidates: 24 });
    const finished = Array.from({ length: 20 }, (_, n) => {
      const p = sampler.suggest(n, [], []);
      return { number: n, params: p, objectives: [branin(p)], violation: 0 };
    });
    const batch: ParamSet[] = [];
    for (let i = 0; i < 4; i++) batch.push(sampler.suggest(20 + i, finished, batch));
    const keys = new Set(batch.map((p) => `${(p.x1 as number).toFixed(6)},${(p.x2 as number).toFixed(6)}`));
    expect(keys.size).toBe(4);
  });
});
