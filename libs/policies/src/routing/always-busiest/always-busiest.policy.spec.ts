import { micros, microsFromMillis } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import type { ClusterView } from '../../cluster-view.js';
import { seededRandom } from '@sluice/collections';
import { clusterView, instanceView, policyRequest } from '../../testing/builders.js';
import { createAlwaysBusiest } from './always-busiest.policy.js';

const pick = (view: ClusterView, seed = 1) => createAlwaysBusiest({}, { random: seededRandom(seed) }).route(policyRequest(), view, micros(0));

describe('always-busiest', () => {
  it('picks the most effective load, and its regret is the spread to the idlest', () => {
    const decision = pick(
      clusterView([
        instanceView({ instanceId: 'a', inFlight: 1 }), // 1
        instanceView({ instanceId: 'b', queueDepth: 3, batchSize: 4 }), // 7
        instanceView({ instanceId: 'c', batchSize: 2, inFlight: 2 }), // 4
      ]),
    )!;
    expect(decision.instance.instanceId).toBe('b');
    expect(decision.regret).toBe(6); // −1 − (−7)
    expect(decision.ranked).toEqual([
      { instanceId: 'a', score: -1, effectiveLoad: 1 },
      { instanceId: 'c', score: -4, effectiveLoad: 4 },
      { instanceId: 'b', score: -7, effectiveLoad: 7 },
    ]);
  });

  it('keeps piling onto the same instance as the router counts its in-flight requests', () => {
    const policy = createAlwaysBusiest({}, { random: seededRandom(4) });
    const inFlight = new Map([
      ['a', 0],
      ['b', 1],
    ]);
    for (let k = 0; k < 5; k++) {
      const view = clusterView([...inFlight].map(([instanceId, n]) => instanceView({ instanceId, inFlight: n })));
      const decision = policy.route(policyRequest(), view, micros(0))!;
      expect(decision.instance.instanceId).toBe('b');
      expect(decision.regret).toBe(k + 1);
      inFlight.set('b', inFlight.get('b')! + 1);
    }
  });

  it('breaks ties with the seeded random: both busiest get chosen over many seeds, the idle one never', () => {
    const view = clusterView([instanceView({ instanceId: 'a', queueDepth: 9 }), instanceView({ instanceId: 'idle' }), instanceView({ instanceId: 'b', inFlight: 9 })]);
    const counts = new Map<string, number>();
    for (let seed = 0; seed < 200; seed++) {
      const id = pick(view, seed)!.instance.instanceId;
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    expect(counts.get('idle')).toBeUndefined();
    expect(counts.get('a')).toBeGreaterThan(60);
    expect(counts.get('b')).toBeGreaterThan(60);
  });

  it('all idle (nothing reported yet): any of them, regret 0', () => {
    const decision = pick(clusterView([instanceView({ instanceId: 'a', snapshotAgeUs: microsFromMillis(Infinity) }), instanceView({ instanceId: 'b', snapshotAgeUs: microsFromMillis(Infinity) })]))!;
    expect(decision.regret).toBe(0);
    expect(decision.ranked[0]!.instanceId).toBe(decision.instance.instanceId);
  });

  it('takes no parameters', () => {
    expect(() => createAlwaysBusiest({ x: 1 }, { random: seededRandom(1) })).toThrow(ZodError);
  });
});
