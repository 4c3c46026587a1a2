import { z } from 'zod';
import { argMaxRandomTie, loadsOf, negativeLoads, rankedDecision, routingCandidates } from '../decision.js';
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
  return {
    name: LEAST_LOADED,
    route(request, cluster) {
      const candidates = routingCandidates(request, cluster);
      if (candidates.length === 0) return null;
      const scores = negativeLoads(loadsOf(candidates));
      return rankedDecision(candidates, scores, argMaxRandomTie(scores, deps.random, deps.tieBreak));
    },
  };
}
