import { clampScore, fillScores, scoreArray, type Scorer } from '../scorer.js';
import { CandidatePositions } from './candidate-positions.js';

export const PREFIX_AFFINITY_SCORER = 'prefix-affinity';

/** Matches walked instead of candidates when they number under 1/FEW_MATCHES of the candidates. */
const FEW_MATCHES = 4;

/**
 * The fraction of the request's prompt blocks the instance already holds as a leading run, as
 * the router-side prefix index believes (BLIS's prefix-affinity, the Endpoint Picker's
 * prefix-cache scorer): matchedBlocks / total blocks. 0 everywhere when the view carries no
 * prefix lookup or the request has no full block.
 */
export function createPrefixAffinityScorer(): Scorer {
  const positions = new CandidatePositions();
  return {
    name: PREFIX_AFFINITY_SCORER,
    score(request, candidates, cluster, out) {
      const blocks = request.blockHashes;
      const prefix = cluster.prefix;
      const n = candidates.length;
      // Loops over a preallocated array, not Array.prototype.map: at 10 000 candidates the
      // array map grows cost more than the lookups (docs/benchmarks.md, routing decision time).
      const scores = fillScores(scoreArray(n, out), 0);
      if (!prefix || blocks.length === 0) return scores;
      if (prefix.matchedBlocksByInstance) {
        const matched = prefix.matchedBlocksByInstance(blocks);
        // Nobody holds the first block (a new prompt): every candidate scores 0, no lookup needed.
        if (matched.size === 0) return scores;
        // Few instances matched (a prompt family's holders among thousands): walk the matches,
        // not the candidates. Instances matched but not candidates (another model) are skipped.
        const at = matched.size * FEW_MATCHES < n ? positions.of(candidates) : undefined;
        if (at) {
          for (const [instanceId, blocksMatched] of matched) {
            const i = at.get(instanceId);
            if (i !== undefined) scores[i] = clampScore(blocksMatched / blocks.length);
          }
          return scores;
        }
        for (let i = 0; i < n; i++) scores[i] = clampScore((matched.get(candidates[i]!.instanceId) ?? 0) / blocks.length);
        return scores;
      }
      for (let i = 0; i < n; i++) scores[i] = clampScore(prefix.matchedBlocks(candidates[i]!.instanceId, blocks) / blocks.length);
      return scores;
    },
  };
}
