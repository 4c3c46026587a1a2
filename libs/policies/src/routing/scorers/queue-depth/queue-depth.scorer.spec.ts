import { microsFromMillis } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import type { InstanceView } from '../../../cluster-view.js';
import { clusterView, instanceView, policyRequest } from '../../../testing/builders.js';
import { createQueueDepthScorer } from './queue-depth.scorer.js';

const scorer = createQueueDepthScorer();
const score = (candidates: InstanceView[]) => scorer.score(policyRequest(), candidates, clusterView(candidates));

describe('queue-depth scorer', () => {
  it('is (max − load)/(max − min) over the candidates’ effective loads', () => {
    expect(
      score([
        instanceView({ instanceId: 'a', queueDepth: 1, inFlight: 1 }), // 2
        instanceView({ instanceId: 'b', queueDepth: 2, batchSize: 3, inFlight: 1 }), // 6
        instanceView({ instanceId: 'c', batchSize: 4 }), // 4
      ]),
    ).toEqual([1, 0, 0.5]);
  });

  it('is 1 for all when all loads are equal, and for a single candidate', () => {
    expect(score([instanceView({ instanceId: 'a', queueDepth: 3 }), instanceView({ instanceId: 'b', inFlight: 3 })])).toEqual([1, 1]);
    expect(score([instanceView({ instanceId: 'a', queueDepth: 30 })])).toEqual([1]);
  });

  it('before any snapshot, every instance reads 0 load: all 1 (in-flight still counts)', () => {
    const fresh = (id: string, inFlight = 0) => instanceView({ instanceId: id, snapshotAgeUs: microsFromMillis(Number.POSITIVE_INFINITY), inFlight });
    expect(score([fresh('a'), fresh('b')])).toEqual([1, 1]);
    expect(score([fresh('a', 2), fresh('b'), fresh('c', 1)])).toEqual([0, 1, 0.5]);
  });

  it('is relative: the same load scores differently among different peers', () => {
    const a = instanceView({ instanceId: 'a', queueDepth: 10 });
    expect(score([a, instanceView({ instanceId: 'b', queueDepth: 20 })])[0]).toBe(1);
    expect(score([a, instanceView({ instanceId: 'b' })])[0]).toBe(0);
  });

  it("reads the queue alone with reads: 'queue-depth' (BLIS's scoreQueueDepth at its blackbox commit)", () => {
    const candidates = [
      instanceView({ instanceId: 'a', queueDepth: 1, inFlight: 1 }), // queue 1
      instanceView({ instanceId: 'b', queueDepth: 2, batchSize: 3, inFlight: 1 }), // queue 2
      instanceView({ instanceId: 'c', batchSize: 4 }), // queue 0
    ];
    // max 2, min 0: a (2 − 1)/2 = 0.5, b 0, c 1; the default (effective load 2, 6, 4) gives [1, 0, 0.5].
    expect(createQueueDepthScorer({ reads: 'queue-depth' }).score(policyRequest(), candidates, clusterView(candidates))).toEqual([0.5, 0, 1]);
    // All queues equal (0), whatever their batches: all 1.
    const idleQueues = [instanceView({ instanceId: 'a', batchSize: 9 }), instanceView({ instanceId: 'b' })];
    expect(createQueueDepthScorer({ reads: 'queue-depth' }).score(policyRequest(), idleQueues, clusterView(idleQueues))).toEqual([1, 1]);
  });

  it('refuses an unknown signal', () => {
    expect(() => createQueueDepthScorer({ reads: 'batch' })).toThrow();
  });
});
