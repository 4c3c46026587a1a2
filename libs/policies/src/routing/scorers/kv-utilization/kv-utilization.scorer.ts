import { clampScore, scoreArray, type Scorer } from '../scorer.js';

export const KV_UTILIZATION_SCORER = 'kv-utilization';

/**
 * Free KV cache (BLIS's kv-utilization scorer): 1 − kvUtilization, so an instance with room for
 * the request's blocks (and fewer preemptions ahead) scores higher. Snapshot-derived: 1 before
 * an instance's first snapshot.
 */
export function createKvUtilizationScorer(): Scorer {
  return {
    name: KV_UTILIZATION_SCORER,
    score(_request, candidates, _cluster, out) {
      const scores = scoreArray(candidates.length, out);
      for (let i = 0; i < candidates.length; i++) scores[i] = clampScore(1 - candidates[i]!.kvUtilization);
      return scores;
    },
  };
}
