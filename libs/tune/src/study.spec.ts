import { describe, expect, it } from 'vitest';
import type { Param, ParamSet } from './parameter.js';
import { bestSoFar, bestTrials, meanMeasure, runStudy, violationOf, type StudySettings, type TrialPlan } from './study.js';

const PARAMS: Param[] = [
  { kind: 'range', path: 'x', min: 0, max: 10, log: false, int: false },
  { kind: 'range', path: 'y', min: 0, max: 10, log: false, int: false },
];

/** Maximise x + y under x·y ≤ 20: the feasible optimum lies on the hyperbola, near x = y ≈ 4.47 (sum ≈ 8.94)… or at an edge (10, 2): sum 12. */
const f = (p: ParamSet) => ({ sum: (p.x as number) + (p.y as number), product: (p.x as number) * (p.y as number) });

const settings = (over: Partial<StudySettings> = {}): StudySettings => ({ params: PARAMS, directions: ['maximize'], constraints: [{ max: 20 }], trials: 40, batchSize: 4, seed: 7, ...over });

const evaluate = async (batch: readonly TrialPlan[]) => batch.map((t) => ({ objectives: [f(t.params).sum], constraints: [f(t.params).product], durationMs: 1 }));

describe('runStudy', () => {
  it('gives the same trials for the same seed and batch size, whatever order the batch finishes in', async () => {
    const a = await runStudy(settings(), evaluate);
    // An evaluator that works through the batch backwards (as threads finishing in another order would).
    const b = await runStudy(settings(), async (batch) => {
      const out = [];
      for (const t of [...batch].reverse()) out.unshift({ objectives: [f(t.params).sum], constraints: [f(t.params).product], durationMs: 1 });
      return out;
    });
    expect(b.map((t) => t.params)).toEqual(a.map((t) => t.params));
    const other = await runStudy(settings({ seed: 8 }), evaluate);
    expect(other.map((t) => t.params)).not.toEqual(a.map((t) => t.params));
  });

  it('asks for trials in batches of batchSize, the last batch the remainder', async () => {
    const sizes: number[] = [];
    await runStudy(settings({ trials: 10 }), async (batch) => {
      sizes.push(batch.length);
      return evaluate(batch);
    });
    expect(sizes).toEqual([4, 4, 2]);
  });

  it('marks a trial infeasible when a constraint fails, and ranks feasible trials first', async () => {
    const trials = await runStudy(settings(), evaluate);
    for (const t of trials) expect(t.feasible).toBe(f(t.params).product <= 20);
    const best = bestTrials(trials, ['maximize'], 3);
    expect(best.every((t) => t.feasible)).toBe(true);
    const feasibleSums = trials.filter((t) => t.feasible).map((t) => t.objectives[0]!);
    expect(best[0]!.objectives[0]).toBe(Math.max(...feasibleSums));
    // The search moves toward the constrained optimum (sum 12 at an edge): better than the middle of the box.
    expect(best[0]!.objectives[0]).toBeGreaterThan(9);
  });

  it('the convergence curve never gets worse', async () => {
    const trials = await runStudy(settings(), evaluate);
    const curve = bestSoFar(trials, ['maximize']).map((t) => (t?.feasible ? t.objectives[0]! : -Infinity));
    for (let i = 1; i < curve.length; i++) expect(curve[i]).toBeGreaterThanOrEqual(curve[i - 1]!);
  });
});

describe('violationOf (Optuna: the positive parts summed)', () => {
  it('adds how far each value lies outside its bound', () => {
    expect(violationOf([{ max: 100 }, { min: 5 }], [120, 2])).toBe(23);
    expect(violationOf([{ max: 100 }, { min: 5, max: 10 }], [100, 7])).toBe(0);
  });
  it('counts a metric with no value as violated without limit', () => {
    expect(violationOf([{ max: 100 }], [null])).toBe(Infinity);
  });
});

describe('meanMeasure (a trial over several workload seeds)', () => {
  it('averages each metric and adds the durations', () => {
    expect(meanMeasure([{ objectives: [10, 1], constraints: [100], durationMs: 5 }, { objectives: [20, 3], constraints: [300], durationMs: 7 }])).toEqual({ objectives: [15, 2], constraints: [200], durationMs: 12 });
  });
  it('has no value for a metric one run had none of', () => {
    expect(meanMeasure([{ objectives: [10], constraints: [null], durationMs: 1 }, { objectives: [20], constraints: [300], durationMs: 1 }]).constraints).toEqual([null]);
  });
});
