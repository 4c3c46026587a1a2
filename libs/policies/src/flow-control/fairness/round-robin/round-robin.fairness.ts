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
    // Flows are in creation (ordinal) order: the next one after the last served, else wrap.
    for (const flow of flows) if (flow.ordinal > state.lastOrdinal) return flow;
    return flows[0] ?? null;
  },
  dispatched(state, flow) {
    state.lastOrdinal = flow.ordinal;
  },
};

export function createRoundRobinFairness(): FairnessPolicy<RoundRobinState> {
  return roundRobinFairness;
}
