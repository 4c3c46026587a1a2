import { describe, expect, it } from 'vitest';
import { clusterView, instanceView, instanceViews, policyRequest } from '../../../testing/builders.js';
import { createLoadBalanceScorer } from './load-balance.scorer.js';

const scorer = createLoadBalanceScorer();

describe('load-balance scorer', () => {
  it('is 1 / (1 + effective load)', () => {
    const candidates = [
      instanceView({ instanceId: 'a' }),
      instanceView({ instanceId: 'b', inFlight: 1 }),
      instanceView({ instanceId: 'c', queueDepth: 1, batchSize: 1, inFlight: 1 }),
      instanceView({ instanceId: 'd', batchSize: 99 }),
    ];
    expect(scorer.score(policyRequest(), candidates, clusterView(candidates))).toEqual([1, 0.5, 0.25, 0.01]);
  });

  it('does not depend on the other candidates (unlike queue-depth), and one candidate is not forced to 1', () => {
    const busy = instanceView({ instanceId: 'busy', queueDepth: 3 });
    expect(scorer.score(policyRequest(), [busy], clusterView([busy]))).toEqual([0.25]);
    const peers = [busy, ...instanceViews(3)];
    expect(scorer.score(policyRequest(), peers, clusterView(peers))[0]).toBe(0.25);
  });
});
