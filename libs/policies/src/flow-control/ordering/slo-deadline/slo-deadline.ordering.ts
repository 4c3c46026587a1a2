import type { OrderingPolicy } from '../../ports.js';

export const SLO_DEADLINE_ORDERING = 'slo-deadline-ordering-policy';

/**
 * Earliest SLO deadline first: arrival + `x-slo-ttft-ms` (docs/behaviour.md §3). Requests without the
 * header go behind every request that has it, FCFS among themselves.
 */
export const sloDeadlineOrdering: OrderingPolicy = {
  name: SLO_DEADLINE_ORDERING,
  compare(a, b) {
    const da = a.sloDeadlineUs ?? Number.POSITIVE_INFINITY;
    const db = b.sloDeadlineUs ?? Number.POSITIVE_INFINITY;
    if (da !== db) return da < db ? -1 : 1;
    return a.seq - b.seq;
  },
};

export function createSloDeadlineOrdering(): OrderingPolicy {
  return sloDeadlineOrdering;
}
