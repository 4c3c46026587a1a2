import { effectiveLoad } from '../../decision.js';
import { clampScore, type Scorer } from '../scorer.js';

export const QUEUE_DEPTH_SCORER = 'queue-depth';

/**
 * Min-max normalised effective load (BLIS's queue-depth scorer): (max − load) / (max − min)
 * over the candidates, so the least loaded scores 1 and the most loaded 0. When every candidate
 * has the same load (one candidate included) there is nothing to prefer: all score 1.
 */
export function createQueueDepthScorer(): Scorer {
  return {
    name: QUEUE_DEPTH_SCORER,
    score(_request, candidates) {
      const loads = candidates.map(effectiveLoad);
      let min = Number.POSITIVE_INFINITY;
      let max = Number.NEGATIVE_INFINITY;
      for (const load of loads) {
        if (load < min) min = load;
        if (load > max) max = load;
      }
      const range = max - min;
      if (!(range > 0)) return loads.map(() => 1);
      return loads.map((load) => clampScore((max - load) / range));
    },
  };
}
