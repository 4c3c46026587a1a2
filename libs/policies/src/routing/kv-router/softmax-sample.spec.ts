import { seededRandom } from '@sluice/collections';
import { describe, expect, it } from 'vitest';
import { softmaxSampleLowest } from './softmax-sample.js';

const first = (tied: number[]) => tied[0]!;

describe('softmaxSampleLowest (Dynamo’s softmax_sample)', () => {
  it('at temperature 0 takes the lowest cost, its ties to the tie-break', () => {
    expect(softmaxSampleLowest([5, 3, 7, 3.5], 0, () => 0.99, first)).toBe(1);
    expect(softmaxSampleLowest([5, 3, 3, 7], 0, () => 0.99, (tied) => tied.at(-1)!)).toBe(2);
  });

  it('above 0 draws by exp(−(cost − min) / (range · T)): the shares follow, whatever the costs’ scale', () => {
    const draws = (costs: number[], temperature: number) => {
      const random = seededRandom(42);
      const counts = costs.map(() => 0);
      for (let n = 0; n < 20_000; n++) counts[softmaxSampleLowest(costs, temperature, random, first)]!++;
      return counts.map((c) => c / 20_000);
    };
    // Two costs at T = 1: weights 1 and e^−1, shares 0.731 and 0.269.
    const shares = draws([10, 20], 1);
    expect(shares[0]).toBeCloseTo(1 / (1 + Math.exp(-1)), 1);
    expect(draws([1000, 2000], 1)[0]).toBeCloseTo(shares[0]!, 1);
    // A high temperature spreads the choice; a low one concentrates it on the cheapest.
    expect(draws([10, 20], 100)[0]).toBeCloseTo(0.5, 1);
    expect(draws([10, 20], 0.05)[0]).toBeGreaterThan(0.99);
  });

  it('all equal: uniform', () => {
    const picks = new Set<number>();
    const random = seededRandom(1);
    for (let n = 0; n < 200; n++) picks.add(softmaxSampleLowest([4, 4, 4], 0.5, random, first));
    expect([...picks].sort()).toEqual([0, 1, 2]);
  });
});
