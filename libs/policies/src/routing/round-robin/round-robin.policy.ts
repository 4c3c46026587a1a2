import { z } from 'zod';
import { ScoreLease, negativeLoadsInto, rankedDecision, routingCandidates } from '../decision.js';
import type { RoutingPolicy } from '../routing-policy.js';

export const ROUND_ROBIN = 'round-robin';

/** No parameters; strict, so a misspelt knob is an error at start-up rather than ignored. */
export const RoundRobinParamsSchema = z.strictObject({});

/**
 * Cycles through the instances serving the request's model, in the order the view lists them.
 * The cursor advances once per decision, so a changing instance set never starves one of them.
 * Load-blind: its ranking (by −effective load) is only there to measure its regret. Needs no
 * random source, so it takes no deps.
 */
export function createRoundRobin(params: unknown = {}): RoutingPolicy {
  RoundRobinParamsSchema.parse(params);
  let cursor = 0;
  // The scores, reused from one decision to the next: a decision's ranking reads them only until
  // the next route() renews the lease (decision.ts, ScoreLease).
  const lease = new ScoreLease();
  const scores: number[] = [];
  return {
    name: ROUND_ROBIN,
    route(request, cluster) {
      lease.renew();
      const candidates = routingCandidates(request, cluster);
      if (candidates.length === 0) return null;
      const chosen = cursor % candidates.length;
      cursor = (cursor + 1) % Number.MAX_SAFE_INTEGER;
      return rankedDecision(candidates, negativeLoadsInto(candidates, scores), chosen, undefined, lease);
    },
  };
}
