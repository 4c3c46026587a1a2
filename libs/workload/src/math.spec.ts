import { seededRandom } from '@sluice/collections';
import { describe, expect, it } from 'vitest';
import { logGamma, sampleGamma, sampleWeibull, weibullShapeForCv } from './math.js';

function meanAndCv(xs: number[]): { mean: number; cv: number } {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1);
  return { mean, cv: Math.sqrt(variance) / mean };
}

describe('logGamma', () => {
  it('matches ln((n-1)!) and Γ(1/2) = √π', () => {
    let factorial = 1;
    for (let n = 1; n <= 20; n++) {
      expect(logGamma(n)).toBeCloseTo(Math.log(factorial), 10);
      factorial *= n;
    }
    expect(logGamma(0.5)).toBeCloseTo(0.5 * Math.log(Math.PI), 12);
    expect(logGamma(0.1)).toBeCloseTo(2.252712651734206, 12);
  });

  it('rejects x <= 0', () => {
    expect(() => logGamma(0)).toThrow(RangeError);
  });
});

describe('weibullShapeForCv', () => {
  it('gives shape 1 for cv 1 (the exponential) and round-trips other cvs', () => {
    expect(weibullShapeForCv(1)).toBeCloseTo(1, 9);
    for (const cv of [0.1, 0.5, 2, 5]) {
      const k = weibullShapeForCv(cv);
      const back = Math.sqrt(Math.exp(logGamma(1 + 2 / k) - 2 * logGamma(1 + 1 / k)) - 1);
      expect(back).toBeCloseTo(cv, 8);
    }
  });
});

describe('samplers', () => {
  it('gamma has mean kθ and cv 1/√k, also for k < 1', () => {
    for (const shape of [0.25, 4]) {
      const rng = seededRandom(7);
      const xs = Array.from({ length: 20_000 }, () => sampleGamma(rng, shape, 2));
      const { mean, cv } = meanAndCv(xs);
      expect(mean / (shape * 2)).toBeGreaterThan(0.96);
      expect(mean / (shape * 2)).toBeLessThan(1.04);
      expect(cv / (1 / Math.sqrt(shape))).toBeGreaterThan(0.95);
      expect(cv / (1 / Math.sqrt(shape))).toBeLessThan(1.05);
    }
  });

  it('weibull with shape 1 is exponential', () => {
    const rng = seededRandom(3);
    const { mean, cv } = meanAndCv(Array.from({ length: 20_000 }, () => sampleWeibull(rng, 1, 5)));
    expect(mean).toBeGreaterThan(4.85);
    expect(mean).toBeLessThan(5.15);
    expect(cv).toBeGreaterThan(0.96);
    expect(cv).toBeLessThan(1.04);
  });
});
