import { z } from 'zod';
import { argMaxRandomTie, loadsOf, negativeLoads, rankedDecision, routingCandidates } from '../decision.js';
import type { RoutingPolicy, RoutingPolicyDeps } from '../routing-policy.js';

export const ALWAYS_BUSIEST = 'always-busiest';

/** No parameters; strict, so a misspelt knob is an error at start-up rather than ignored. */
export const AlwaysBusiestParamsSchema = z.strictObject({});

/**
 * Pathological on purpose (docs/behaviour.md §4, BLIS's always-busiest): the candidate with the MOST
 * effective load, ties broken by the seeded random source. A test policy: it piles work onto
 * one instance, so experiments can show what bad routing costs, and its regret (ranked by
 * −effective load, like least-loaded) is the spread between the busiest and idlest candidate.
 */
export function createAlwaysBusiest(params: unknown, deps: RoutingPolicyDeps): RoutingPolicy {
  AlwaysBusiestParamsSchema.parse(params ?? {});
  return {
    name: ALWAYS_BUSIEST,
    route(request, cluster) {
      const candidates = routingCandidates(request, cluster);
      if (candidates.length === 0) return null;
      const loads = loadsOf(candidates);
      return rankedDecision(candidates, negativeLoads(loads), argMaxRandomTie(loads, deps.random, deps.tieBreak));
    },
  };
}
