import { fillScores, scoreArray, type Scorer } from '../scorer.js';

export const PRECISE_PREFIX_CACHE_SCORER = 'precise-prefix-cache';

/**
 * The leading blocks of the request each instance's cache really holds, from the KV-event index
 * (`cluster.kvCache`), min-max normalised over the candidates: (n − min) / (max − min), and 1 for
 * every candidate when all match alike (all zero included). That is BLIS's precise-prefix-cache
 * (sim/routing_precise_prefix_scorer.go at inference-sim/inference-sim
 * b563c4405b7847eaf682c6d603065c1faca3ca03), which follows llm-d's
 * indexedScoresToNormalizedScoredPods; like BLIS it scores 1 everywhere when there is no cache
 * view at all. Where `prefix-affinity` reads the router's belief, this reads the caches' events.
 */
export function createPrecisePrefixCacheScorer(): Scorer {
  return {
    name: PRECISE_PREFIX_CACHE_SCORER,
    score(request, candidates, cluster, out) {
      const n = candidates.length;
      const scores = scoreArray(n, out);
      const kv = cluster.kvCache;
      if (!kv) return fillScores(scores, 1);
      const blocks = request.blockHashes;
      const matched = kv.matchedBlocksByInstance?.(blocks);
      // The matched counts first, in place, then normalised in place.
      let min = Number.POSITIVE_INFINITY;
      let max = 0;
      for (let i = 0; i < n; i++) {
        const id = candidates[i]!.instanceId;
        const count = matched ? (matched.get(id) ?? 0) : kv.matchedBlocks(id, blocks);
        scores[i] = count;
        if (count < min) min = count;
        if (count > max) max = count;
      }
      if (max === min) return fillScores(scores, 1);
      const span = max - min;
      for (let i = 0; i < n; i++) scores[i] = (scores[i]! - min) / span;
      return scores;
    },
  };
}
