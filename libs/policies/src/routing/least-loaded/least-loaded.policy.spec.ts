import { micros, microsFromMillis } from '@sluice/contracts';
import type { LoadSnapshot } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import type { ClusterView } from '../../cluster-view.js';
import { ClusterState } from '../../cluster-state.js';
import { seededRandom } from '@sluice/collections';
import { clusterView, instanceView, policyRequest } from '../../testing/builders.js';
import { createLeastLoaded } from './least-loaded.policy.js';

const pick = (view: ClusterView, seed = 1) => createLeastLoaded({}, { random: seededRandom(seed) }).route(policyRequest(), view, micros(0));

/** How often each instance is chosen by fresh policies over `seeds` seeds. */
const tally = (view: ClusterView, seeds = 200) => {
  const counts = new Map<string, number>();
  for (let seed = 0; seed < seeds; seed++) {
    const id = pick(view, seed)!.instance.instanceId;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
};

describe('least-loaded', () => {
  it('picks the least effective load (queue + batch + in flight), ranks by −load, regret 0', () => {
    const decision = pick(
      clusterView([
        instanceView({ instanceId: 'a', queueDepth: 2, batchSize: 3, inFlight: 1 }), // 6
        instanceView({ instanceId: 'b', batchSize: 4 }), // 4
        instanceView({ instanceId: 'c', inFlight: 5 }), // 5
      ]),
    )!;
    expect(decision.instance.instanceId).toBe('b');
    expect(decision.regret).toBe(0);
    expect(decision.ranked).toEqual([
      { instanceId: 'b', score: -4, effectiveLoad: 4 },
      { instanceId: 'c', score: -5, effectiveLoad: 5 },
      { instanceId: 'a', score: -6, effectiveLoad: 6 },
    ]);
  });

  it('counts the router-owned in-flight requests: the snapshot-idle instance with 3 in flight loses to queue 2', () => {
    const view = clusterView([instanceView({ instanceId: 'a', inFlight: 3 }), instanceView({ instanceId: 'b', queueDepth: 2 })]);
    expect(pick(view)!.instance.instanceId).toBe('b');
  });

  it('ignores instances of other models, however idle', () => {
    const view = clusterView([instanceView({ instanceId: 'other', model: 'llama-3-8b' }), instanceView({ instanceId: 'a', queueDepth: 50 })]);
    expect(pick(view)!.instance.instanceId).toBe('a');
    expect(pick(view)!.ranked.map((r) => r.instanceId)).toEqual(['a']);
  });

  it('breaks ties with the seeded random: both tied instances get chosen over many seeds, the busier one never', () => {
    const view = clusterView([
      instanceView({ instanceId: 'a', queueDepth: 2 }),
      instanceView({ instanceId: 'busy', queueDepth: 5 }),
      instanceView({ instanceId: 'b', batchSize: 1, inFlight: 1 }),
    ]);
    const counts = tally(view);
    expect(counts.get('busy')).toBeUndefined();
    expect(counts.get('a')).toBeGreaterThan(60);
    expect(counts.get('b')).toBeGreaterThan(60);
    // The tied ones rank chosen first, then in view order.
    const decision = pick(view, [...Array(200).keys()].find((seed) => pick(view, seed)!.instance.instanceId === 'b'))!;
    expect(decision.ranked.map((r) => r.instanceId)).toEqual(['b', 'a', 'busy']);
    expect(decision.regret).toBe(0);
  });

  it('one policy spreads a tie over its decisions (the random source advances)', () => {
    const policy = createLeastLoaded({}, { random: seededRandom(9) });
    const view = clusterView([instanceView({ instanceId: 'a' }), instanceView({ instanceId: 'b' })]);
    const picks = new Set(Array.from({ length: 50 }, () => policy.route(policyRequest(), view, micros(0))!.instance.instanceId));
    expect(picks).toEqual(new Set(['a', 'b']));
  });

  it('does not filter stale signals: a minute-old idle snapshot still wins over a fresh busy one', () => {
    const view = clusterView([instanceView({ instanceId: 'fresh', queueDepth: 3, snapshotAgeUs: microsFromMillis(5) }), instanceView({ instanceId: 'stale', snapshotAgeUs: microsFromMillis(60_000) })]);
    expect(pick(view)!.instance.instanceId).toBe('stale');
  });

  it('reads snapshot signals as 0 before the first snapshot (only in-flight counts then)', () => {
    const state = new ClusterState(micros(3_000));
    const identity = { workerId: 'w1', rank: 0, model: 'qwen3-14b', totalKvBlocks: 1_000 };
    state.onLifecycle({ ...identity, instanceId: 'i1', type: 'register', atUs: microsFromMillis(0) });
    state.onLifecycle({ ...identity, instanceId: 'i2', type: 'register', atUs: microsFromMillis(0) });
    const snapshot: LoadSnapshot = {
      ...identity,
      instanceId: 'i1',
      atUs: microsFromMillis(10),
      queueDepth: 1,
      batchSize: 0,
      inFlight: 1,
      kvUtilization: 0.1,
      freeKvBlocks: 900,
      activePrefillTokens: 0,
      activeDecodeBlocks: 0,
      cacheHitRate: 0,
      preemptions: 0,
    };
    state.onSnapshot(snapshot);
    expect(pick(state.view(micros(20)))!.instance.instanceId).toBe('i2'); // i2: never refreshed, reads 0
    state.dispatched('i2', 'r1');
    state.dispatched('i2', 'r2');
    const decision = pick(state.view(micros(20)))!;
    expect(decision.instance.instanceId).toBe('i1'); // i1: 1 queued; i2: 2 in flight
    expect(decision.ranked.map((r) => [r.instanceId, r.effectiveLoad])).toEqual([
      ['i1', 1],
      ['i2', 2],
    ]);
  });

  it('takes no parameters', () => {
    expect(() => createLeastLoaded({ tieBreak: 'first' }, { random: seededRandom(1) })).toThrow(ZodError);
  });
});
