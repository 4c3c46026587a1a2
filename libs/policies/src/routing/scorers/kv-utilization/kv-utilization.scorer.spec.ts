import { microsFromMillis } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { clusterView, instanceViews, policyRequest } from '../../../testing/builders.js';
import { createKvUtilizationScorer } from './kv-utilization.scorer.js';

const scorer = createKvUtilizationScorer();
const score = (utilizations: number[]) => {
  const candidates = instanceViews(utilizations.length, (i) => ({ kvUtilization: utilizations[i]! }));
  return scorer.score(policyRequest(), candidates, clusterView(candidates));
};

describe('kv-utilization scorer', () => {
  it('is 1 − kvUtilization', () => {
    expect(score([0, 0.25, 0.5, 1])).toEqual([1, 0.75, 0.5, 0]);
  });

  it('is 1 before the first snapshot (utilization reads 0), whatever the age', () => {
    const candidates = instanceViews(2, (i) => ({ snapshotAgeUs: microsFromMillis(i === 0 ? Number.POSITIVE_INFINITY : 90_000) }));
    expect(scorer.score(policyRequest(), candidates, clusterView(candidates))).toEqual([1, 1]);
  });

  it('clamps a utilization outside [0, 1]', () => {
    expect(score([1.2, -0.1, Number.NaN])).toEqual([0, 1, 0]);
  });
});
