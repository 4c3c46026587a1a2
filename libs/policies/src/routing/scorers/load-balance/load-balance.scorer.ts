import { effectiveLoad } from '../../decision.js';
import { clampScore, scoreArray, type Scorer } from '../scorer.js';

export const LOAD_BALANCE_SCORER = 'load-balance';

/**
 * Inverse effective load (BLIS's load-balance scorer): 1 / (1 + load). 1 when idle, falling
 * smoothly with load; unlike queue-depth it does not depend on the other candidates.
 */
export function createLoadBalanceScorer(): Scorer {
  return {
    name: LOAD_BALANCE_SCORER,
    score(_request, candidates, _cluster, out) {
      const scores = scoreArray(candidates.length, out);
      for (let i = 0; i < candidates.length; i++) scores[i] = clampScore(1 / (1 + Math.max(0, effectiveLoad(candidates[i]!))));
      return scores;
    },
  };
}
