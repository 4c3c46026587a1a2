import { seededRandom } from '@sluice/collections';
import { micros } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { KvEventIndex } from '../../kv-index/kv-event-index.js';
import { PrefixIndex } from '../../prefix-index/prefix-index.js';
import { blocksNamed, clusterView, instanceViews, policyRequest } from '../../testing/builders.js';
import { createKvRouter } from './kv-router.policy.js';

const NOW = micros(0);

function caches(...held: number[][]): KvEventIndex {
  const index = new KvEventIndex(1_000, 0);
  held.forEach((blocks, i) => index.receive({ instanceId: `i${i}`, atUs: NOW, stored: blocks, removed: [] }));
  return index;
}

describe('kv-router', () => {
  const prompt = blocksNamed('p0', 'p1', 'p2', 'p3');
  const request = policyRequest({ inputTokens: 64, blockHashes: prompt });

  it('costs overlapScoreWeight · prefill blocks + decode blocks, and takes the cheapest at temperature 0', () => {
    const candidates = instanceViews(3, (i) => ({ activeDecodeBlocks: [10, 0, 0][i]!, activePrefillTokens: [0, 0, 32][i]! }));
    const kvCache = caches(prompt, prompt.slice(0, 2), prompt.slice(0, 2));
    const policy = createKvRouter({}, { random: seededRandom(1) });
    const decision = policy.route(request, { ...clusterView(candidates), kvCache }, NOW)!;
    // i0: prefill 0 + decode 10 + 0 → 10; i1: prefill 32/16 = 2, decode 0 + 2 → 4; i2: (32 + 32)/16 = 4, + 2 → 6
    expect(decision.ranked.map((c) => [c.instanceId, -c.score])).toEqual([
      ['i1', 4],
      ['i2', 6],
      ['i0', 10],
    ]);
    expect(decision.instance.instanceId).toBe('i1');
    expect(decision.regret).toBe(0);
    expect(decision.ranked[0]!.scores).toEqual({ overlapBlocks: 2, prefillBlocks: 2, decodeBlocks: 2, cost: 4 });
  });

  it('weighs prefill against decode with overlapScoreWeight', () => {
    const candidates = instanceViews(2, (i) => ({ activeDecodeBlocks: [6, 0][i]! }));
    const kvCache = caches(prompt, []);
    // weight 1: i0 = 0 + 6 = 6, i1 = 4 + 4 = 8 → i0; weight 0.25: i0 = 6, i1 = 1 + 4 = 5 → i1
    const pick = (overlapScoreWeight: number) => createKvRouter({ overlapScoreWeight }, { random: seededRandom(1) }).route(request, { ...clusterView(candidates), kvCache }, NOW)!.instance.instanceId;
    expect(pick(1)).toBe('i0');
    expect(pick(0.25)).toBe('i1');
  });

  it('breaks a tie in cost toward the instance holding the fewest blocks (Dynamo’s tree size)', () => {
    const candidates = instanceViews(3);
    const kvCache = caches(blocksNamed('x1', 'x2', 'x3'), blocksNamed('y1'), blocksNamed('z1', 'z2'));
    for (let seed = 0; seed < 5; seed++) {
      expect(createKvRouter({}, { random: seededRandom(seed) }).route(request, { ...clusterView(candidates), kvCache }, NOW)!.instance.instanceId).toBe('i1');
    }
  });

  it('samples by softmax above temperature 0, reproducibly from its seed, with the regret of a dearer pick', () => {
    const candidates = instanceViews(2);
    const kvCache = caches(prompt, []);
    const run = (seed: number) => {
      const policy = createKvRouter({ temperature: 1 }, { random: seededRandom(seed) });
      return Array.from({ length: 400 }, () => policy.route(request, { ...clusterView(candidates), kvCache }, NOW)!);
    };
    const decisions = run(9);
    expect(run(9).map((d) => d.instance.instanceId)).toEqual(decisions.map((d) => d.instance.instanceId));
    const dearer = decisions.filter((d) => d.instance.instanceId === 'i1');
    // costs 0 and 8 at T = 1: the dearer one has weight e^−1, share ≈ 0.27
    expect(dearer.length / decisions.length).toBeGreaterThan(0.18);
    expect(dearer.length / decisions.length).toBeLessThan(0.36);
    expect(dearer[0]!.regret).toBe(8);
  });

  it('reads the router’s own prefix index instead when useKvEvents is false', () => {
    const candidates = instanceViews(2);
    const belief = new PrefixIndex();
    belief.record('i1', prompt);
    const kvCache = caches(prompt, []);
    const view = { ...clusterView(candidates, belief), kvCache };
    expect(createKvRouter({ useKvEvents: false }, { random: seededRandom(1) }).route(request, view, NOW)!.instance.instanceId).toBe('i1');
    expect(createKvRouter({}, { random: seededRandom(1) }).route(request, view, NOW)!.instance.instanceId).toBe('i0');
  });

  it('refuses parameters that cannot work', () => {
    expect(() => createKvRouter({ temperature: -1 }, { random: seededRandom(1) })).toThrow();
    expect(() => createKvRouter({ overlapWeight: 1 }, { random: seededRandom(1) })).toThrow();
  });
});
