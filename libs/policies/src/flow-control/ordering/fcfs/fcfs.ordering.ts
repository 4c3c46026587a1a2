import type { OrderingPolicy } from '../../ports.js';

export const FCFS_ORDERING = 'fcfs-ordering-policy';

/** First come, first served: enqueue order. The default ordering of every band. */
export const fcfsOrdering: OrderingPolicy = {
  name: FCFS_ORDERING,
  compare: (a, b) => a.seq - b.seq,
};

export function createFcfsOrdering(): OrderingPolicy {
  return fcfsOrdering;
}
