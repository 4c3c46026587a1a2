import type { RoutingPolicy } from '../routing-policy.js';

export const ROUND_ROBIN = 'round-robin';

/**
 * Cycles through the instances serving the request's model, in the order the view lists them.
 * The cursor advances once per decision, so a changing instance set never starves one of them.
 */
export function createRoundRobin(): RoutingPolicy {
  let cursor = 0;
  return {
    name: ROUND_ROBIN,
    route(request, cluster) {
      const candidates = cluster.instances.filter((i) => i.model === request.model);
      if (candidates.length === 0) return null;
      const instance = candidates[cursor % candidates.length]!;
      cursor = (cursor + 1) % Number.MAX_SAFE_INTEGER;
      return { instance };
    },
  };
}
