import { z } from 'zod';
import { ScoreLease, argMaxRandomTie, negativeLoadsInto, rankedDecision, routingCandidates } from '../decision.js';
import type { RoutingPolicy, RoutingPolicyDeps } from '../routing-policy.js';

export const LEAST_LOADED = 'least-loaded';

/** No parameters; strict, so a misspelt knob is an error at start-up rather than ignored. */
export const LeastLoadedParamsSchema = z.strictObject({});

/**
 * The candidate with the least effective load (queueDepth + batchSize + inFlight; docs/behaviour.md
 * §4, BLIS's least-loaded), ties broken by the seeded random source. Its score is −effective
 * load, so it always picks a best-ranked candidate and its regret is 0.
 */
export function createLeastLoaded(params: unknown, deps: RoutingPolicyDeps): RoutingPolicy {
  LeastLoadedParamsSchema.parse(params ?? {});
  // The scores, reused from one decision to the next: a decision's ranking reads them only until
  // the next route() renews the lease (decision.ts, ScoreLease).
  const lease = new ScoreLease();
  const scores: number[] = [];
  return {
    name: LEAST_LOADED,
    route(request, cluster) {
      lease.renew();
      const candidates = routingCandidates(request, cluster);
      if (candidates.length === 0) return null;
      negativeLoadsInto(candidates, scores);
      return rankedDecision(candidates, scores, argMaxRandomTie(scores, deps.random, deps.tieBreak), undefined, lease);
    },
  };
}
