import { describe, expect, it } from 'vitest';
import { paretoFront } from './pareto.js';
import { nonDominationRanks, rankTrials } from './tpe/ranking.js';

describe('paretoFront', () => {
  it('keeps the points no other beats on both metrics, sorted by x, one per plateau', () => {
    const points = [
      { number: 0, x: 100, y: 10 },
      { number: 1, x: 200, y: 30 },
      { number: 2, x: 150, y: 5 }, // beaten by #0: more latency, less throughput
      { number: 3, x: 300, y: 31 },
      { number: 4, x: 200, y: 30 }, // the same as #1
      { number: 5, x: null, y: 50 },
    ];
    expect(paretoFront(points, ['minimize', 'maximize']).map((p) => p.number)).toEqual([0, 1, 3]);
  });
});

describe('ranking (Optuna’s order with constraints)', () => {
  it('puts feasible trials first by objective, then infeasible by violation, then those with no value', () => {
    const trials = [
      { number: 0, objectives: [5], violation: 2 },
      { number: 1, objectives: [3], violation: 0 },
      { number: 2, objectives: [null], violation: 0 },
      { number: 3, objectives: [9], violation: 0 },
      { number: 4, objectives: [7], violation: 1 },
    ];
    expect(rankTrials(trials, ['maximize']).map((t) => t.number)).toEqual([3, 1, 4, 0, 2]);
    expect(rankTrials(trials, ['minimize']).map((t) => t.number)).toEqual([1, 3, 4, 0, 2]);
  });

  it('ranks two objectives by Pareto layer', () => {
    expect(nonDominationRanks([[1, 4], [2, 2], [4, 1], [3, 3], [5, 5]])).toEqual([0, 0, 0, 1, 2]);
    // #0, #1 and #3 are the front, each first on one objective or balanced: ties go by trial number; #2 is beaten by all.
    const trials = [[3, 3], [1, 4], [5, 5], [4, 1], [4, 4]].map((objectives, number) => ({ number, objectives, violation: 0 }));
    expect(rankTrials(trials, ['minimize', 'minimize']).map((t) => t.number)).toEqual([0, 1, 3, 4, 2]);
  });
});
