import { micros } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { KvEventIndex } from '../../../kv-index/kv-event-index.js';
import { PrefixIndex } from '../../../prefix-index/prefix-index.js';
import { blocksNamed, clusterView, instanceViews, policyRequest } from '../../../testing/builders.js';
import { createPrecisePrefixCacheScorer } from './precise-prefix-cache.scorer.js';

const scorer = createPrecisePrefixCacheScorer();
const candidates = instanceViews(4);

function cachesHolding(...held: string[][]): KvEventIndex {
  const index = new KvEventIndex(100, 0);
  held.forEach((names, i) => index.receive({ instanceId: `i${i}`, atUs: micros(0), stored: blocksNamed(...names), removed: [] }));
  return index;
}

describe('precise-prefix-cache scorer', () => {
  it('min-max normalises the leading blocks each cache holds (BLIS)', () => {
    const kvCache = cachesHolding(['a', 'b', 'c', 'd'], ['a', 'b'], ['b', 'c', 'd'], ['a']);
    const request = policyRequest({ blockHashes: blocksNamed('a', 'b', 'c', 'd') });
    // raw 4, 2, 0, 1: min 0, max 4
    expect(scorer.score(request, candidates, { ...clusterView(candidates), kvCache })).toEqual([1, 0.5, 0, 0.25]);
  });

  it('normalises against the lowest candidate, not against zero', () => {
    const kvCache = cachesHolding(['a', 'b', 'c'], ['a'], ['a', 'b'], ['a']);
    const request = policyRequest({ blockHashes: blocksNamed('a', 'b', 'c') });
    expect(scorer.score(request, candidates, { ...clusterView(candidates), kvCache })).toEqual([1, 0, 0.5, 0]);
  });

  it('is 1 for every candidate when all match alike, none at all included, and without a cache view (BLIS, llm-d)', () => {
    const kvCache = cachesHolding(['x'], ['x'], ['x'], ['x']);
    expect(scorer.score(policyRequest({ blockHashes: blocksNamed('x') }), candidates, { ...clusterView(candidates), kvCache })).toEqual([1, 1, 1, 1]);
    expect(scorer.score(policyRequest({ blockHashes: blocksNamed('q') }), candidates, { ...clusterView(candidates), kvCache })).toEqual([1, 1, 1, 1]);
    expect(scorer.score(policyRequest({ blockHashes: [] }), candidates, { ...clusterView(candidates), kvCache })).toEqual([1, 1, 1, 1]);
    expect(scorer.score(policyRequest({ blockHashes: blocksNamed('x') }), candidates, clusterView(candidates))).toEqual([1, 1, 1, 1]);
  });

  it('reads the caches’ events, not the router’s belief', () => {
    const belief = new PrefixIndex();
    belief.record('i0', blocksNamed('m', 'n'));
    const kvCache = cachesHolding([], ['m', 'n']);
    const two = candidates.slice(0, 2);
    const request = policyRequest({ blockHashes: blocksNamed('m', 'n') });
    expect(scorer.score(request, two, { ...clusterView(two, belief), kvCache })).toEqual([0, 1]);
    kvCache.receive({ instanceId: 'i1', atUs: micros(1), stored: [], removed: blocksNamed('n') });
    kvCache.receive({ instanceId: 'i0', atUs: micros(1), stored: blocksNamed('m', 'n'), removed: [] });
    expect(scorer.score(request, two, { ...clusterView(two, belief), kvCache })).toEqual([1, 0]);
  });
});
