import type { FairnessPolicy } from '../../ports.js';

export const ROUND_ROBIN_FAIRNESS = 'round-robin-fairness-policy';

/** Per band: the ordinal of the flow served last. */
export interface RoundRobinState {
  lastOrdinal: number;
}

/**
 * Cycles through the band's flows with work, one request each: a tenant that floods the band gets
 * one dispatch per turn like every other tenant. Ordinals only grow, so a flow that empties and
 * comes back rejoins at the end of the cycle.
 */
export const roundRobinFairness: FairnessPolicy<RoundRobinState> = {
  name: ROUND_ROBIN_FAIRNESS,
  newState: () => ({ lastOrdinal: -1 }),
  pick(flows, state) {
    // Flows are in creation order, so ordinals ascend: binary-search the first one after the last
    // served; past the end, wrap to the first.
    let lo = 0;
    let hi = flows.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (flows[mid]!.ordinal > state.lastOrdinal) hi = mid;
      else lo = mid + 1;
    }
    return flows[lo] ?? flows[0] ?? null;
  },
  dispatched(state, flow) {
    state.lastOrdinal = flow.ordinal;
  },
};

export function createRoundRobinFairness(): FairnessPolicy<RoundRobinState> {
  return roundRobinFairness;
}
