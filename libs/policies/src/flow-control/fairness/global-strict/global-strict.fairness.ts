import type { FairnessPolicy } from '../../ports.js';

export const GLOBAL_STRICT_FAIRNESS = 'global-strict-fairness-policy';

/**
 * One order across all flows of the band: the flow whose head comes first under the band's
 * ordering policy is served (with FCFS, the oldest request of the band). No isolation between
 * tenants: a flooding tenant gets what it sends.
 */
export const globalStrictFairness: FairnessPolicy<null> = {
  name: GLOBAL_STRICT_FAIRNESS,
  newState: () => null,
  pick(flows, _state, ordering) {
    let best = flows[0] ?? null;
    for (let i = 1; i < flows.length; i++) {
      const flow = flows[i]!;
      if (ordering.compare(flow.head(), best!.head()) < 0) best = flow;
    }
    return best;
  },
  dispatched() {},
};

export function createGlobalStrictFairness(): FairnessPolicy<null> {
  return globalStrictFairness;
}
