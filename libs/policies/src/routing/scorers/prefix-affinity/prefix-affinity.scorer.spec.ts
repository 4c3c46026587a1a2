import { describe, expect, it } from 'vitest';
import { PrefixIndex } from '../../../prefix-index/prefix-index.js';
import { blocksNamed, clusterView, instanceViews, policyRequest } from '../../../testing/builders.js';
import { createPrefixAffinityScorer } from './prefix-affinity.scorer.js';

const scorer = createPrefixAffinityScorer();

describe('prefix-affinity scorer', () => {
  const candidates = instanceViews(4);
  const index = new PrefixIndex();
  index.record('i0', blocksNamed('a', 'b', 'c', 'd'));
  index.record('i1', blocksNamed('a', 'b'));
  index.record('i2', blocksNamed('b', 'c', 'd')); // not a leading run: useless to an engine

  it('is the leading matched blocks over the request’s blocks, from the prefix index', () => {
    expect(scorer.score(policyRequest({ blockHashes: blocksNamed('a', 'b', 'c', 'd') }), candidates, clusterView(candidates, index))).toEqual([1, 0.5, 0, 0]);
    expect(scorer.score(policyRequest({ blockHashes: blocksNamed('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h') }), candidates, clusterView(candidates, index))).toEqual([
      0.5, 0.25, 0, 0,
    ]);
    expect(scorer.score(policyRequest({ blockHashes: blocksNamed('a') }), candidates, clusterView(candidates, index))).toEqual([1, 1, 0, 0]);
  });

  it('is 0 everywhere without a prefix index, or for a request with no full block', () => {
    expect(scorer.score(policyRequest({ blockHashes: blocksNamed('a', 'b') }), candidates, clusterView(candidates))).toEqual([0, 0, 0, 0]);
    expect(scorer.score(policyRequest({ blockHashes: [] }), candidates, clusterView(candidates, index))).toEqual([0, 0, 0, 0]);
  });

  it('follows what the index learns and forgets', () => {
    const learning = new PrefixIndex(2);
    const view = clusterView(candidates.slice(0, 2), learning);
    const request = policyRequest({ blockHashes: blocksNamed('x', 'y') });
    expect(scorer.score(request, view.instances, view)).toEqual([0, 0]);
    learning.record('i1', blocksNamed('x', 'y'));
    expect(scorer.score(request, view.instances, view)).toEqual([0, 1]);
    learning.record('i1', blocksNamed('z')); // capacity 2: the LRU block goes, and that is 'y'
    expect(scorer.score(request, view.instances, view)).toEqual([0, 0.5]);
  });
});
