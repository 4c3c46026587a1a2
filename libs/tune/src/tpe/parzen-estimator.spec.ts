import { describe, expect, it } from 'vitest';
import { seededRandom } from '@sluice/collections';
import type { Param } from '../parameter.js';
import { ParzenEstimator } from './parzen-estimator.js';

const X: Param = { kind: 'range', path: 'x', min: 0, max: 10, log: false, int: false };

describe('ParzenEstimator', () => {
  it('is a density on the range: it integrates to 1', () => {
    const pe = new ParzenEstimator([X], [[2], [2.5], [8]], [1, 1, 1]);
    let mass = 0;
    const step = 0.001;
    for (let x = step / 2; x < 10; x += step) mass += Math.exp(pe.logPdf([x])) * step;
    expect(mass).toBeCloseTo(1, 3);
  });

  it('puts its mass near the observations and draws inside the range', () => {
    const pe = new ParzenEstimator([X], Array.from({ length: 20 }, () => [3]), new Array<number>(20).fill(1));
    expect(pe.logPdf([3])).toBeGreaterThan(pe.logPdf([9]));
    const draws = pe.sample(seededRandom(1), 500).map((p) => p[0]!);
    expect(draws.every((x) => x >= 0 && x <= 10)).toBe(true);
    expect(draws.filter((x) => Math.abs(x - 3) < 2).length).toBeGreaterThan(400);
  });

  it('weighs a choice by how often it was observed, over a uniform prior', () => {
    const c: Param = { kind: 'choice', path: 'c', choices: ['a', 'b', 'c'] };
    const pe = new ParzenEstimator([c], [[1], [1], [1], [0]], [1, 1, 1, 1]);
    const p = [0, 1, 2].map((i) => Math.exp(pe.logPdf([i])));
    expect(p[0]! + p[1]! + p[2]!).toBeCloseTo(1, 9);
    expect(p[1]).toBeGreaterThan(p[0]!);
    expect(p[0]).toBeGreaterThan(p[2]!);
  });
});
