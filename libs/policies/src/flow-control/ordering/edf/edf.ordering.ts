import type { OrderingPolicy } from '../../ports.js';

export const EDF_ORDERING = 'edf-ordering-policy';

/**
 * Earliest deadline first, the deadline being when the request's TTL runs out (docs/behaviour.md §3).
 * With one TTL for every request this is arrival order; it differs once requests carry different TTLs.
 */
export const edfOrdering: OrderingPolicy = {
  name: EDF_ORDERING,
  compare: (a, b) => a.ttlDeadlineUs - b.ttlDeadlineUs || a.seq - b.seq,
};

export function createEdfOrdering(): OrderingPolicy {
  return edfOrdering;
}
