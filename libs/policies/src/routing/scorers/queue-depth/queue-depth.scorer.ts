import { z } from 'zod';
import { effectiveLoad } from '../../decision.js';
import type { InstanceView } from '../../../cluster-view.js';
import { clampScore, fillScores, scoreArray, type Scorer } from '../scorer.js';

export const QUEUE_DEPTH_SCORER = 'queue-depth';

export const QueueDepthParamsSchema = z.strictObject({
  /**
   * What is normalised: `effective-load` (default) = queueDepth + batchSize + inFlight;
   * `queue-depth` = the queue alone, as BLIS's blackbox commit and the Endpoint Picker's queue
   * scorer read it (BLIS parity mode).
   */
  reads: z.enum(['effective-load', 'queue-depth']).default('effective-load'),
});
export type QueueDepthParams = z.input<typeof QueueDepthParamsSchema>;

const queueDepthOf = (c: InstanceView): number => c.queueDepth;

/**
 * Min-max normalised load (BLIS's queue-depth scorer): (max − load) / (max − min) over the
 * candidates, so the least loaded scores 1 and the most loaded 0. When every candidate has the
 * same load (one candidate included) there is nothing to prefer: all score 1.
 *
 * The load is the effective load by default. BLIS at its blackbox commit reads QueueDepth alone
 * (inference-sim/inference-sim sim/routing_scorers.go `scoreQueueDepth` at
 * b563c4405b7847eaf682c6d603065c1faca3ca03: "reads QueueDepth only (WaitingQueueSize)", as the
 * Endpoint Picker's queue scorer does): `reads: queue-depth`, which BLIS parity mode selects.
 */
export function createQueueDepthScorer(params: unknown = {}): Scorer {
  const { reads } = QueueDepthParamsSchema.parse(params ?? {});
  const loadOf = reads === 'queue-depth' ? queueDepthOf : effectiveLoad;
  return {
    name: QUEUE_DEPTH_SCORER,
    score(_request, candidates, _cluster, out) {
      // Loops over preallocated arrays, the loads turned into scores in place: at 10 000
      // candidates, Array.prototype.map's growing arrays cost several times the arithmetic.
      const n = candidates.length;
      const scores = scoreArray(n, out);
      let min = Number.POSITIVE_INFINITY;
      let max = Number.NEGATIVE_INFINITY;
      for (let i = 0; i < n; i++) {
        const load = loadOf(candidates[i]!);
        scores[i] = load;
        if (load < min) min = load;
        if (load > max) max = load;
      }
      const range = max - min;
      if (!(range > 0)) return fillScores(scores, 1);
      for (let i = 0; i < n; i++) scores[i] = clampScore((max - scores[i]!) / range);
      return scores;
    },
  };
}
