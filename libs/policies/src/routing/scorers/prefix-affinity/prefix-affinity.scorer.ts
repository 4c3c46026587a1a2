import { clampScore, type Scorer } from '../scorer.js';

export const PREFIX_AFFINITY_SCORER = 'prefix-affinity';

/**
 * The fraction of the request's prompt blocks the instance already holds as a leading run, as
 * the router-side prefix index believes (BLIS's prefix-affinity, the Endpoint Picker's
 * prefix-cache scorer): matchedBlocks / total blocks. 0 everywhere when the view carries no
 * prefix lookup or the request has no full block.
 */
export function createPrefixAffinityScorer(): Scorer {
  return {
    name: PREFIX_AFFINITY_SCORER,
    score(request, candidates, cluster) {
      const blocks = request.blockHashes;
      const prefix = cluster.prefix;
      if (!prefix || blocks.length === 0) return candidates.map(() => 0);
      if (prefix.matchedBlocksByInstance) {
        const matched = prefix.matchedBlocksByInstance(blocks);
        return candidates.map((c) => clampScore((matched.get(c.instanceId) ?? 0) / blocks.length));
      }
      return candidates.map((c) => clampScore(prefix.matchedBlocks(c.instanceId, blocks) / blocks.length));
    },
  };
}
