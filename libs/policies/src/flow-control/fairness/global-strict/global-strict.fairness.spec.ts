import { microsFromMillis } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { FlowQueues, type BandSettings } from '../../flow-queues.js';
import { createEdfOrdering } from '../../ordering/edf/edf.ordering.js';
import { createFcfsOrdering } from '../../ordering/fcfs/fcfs.ordering.js';
import type { FlowView, OrderingPolicy } from '../../ports.js';
import type { QueuedRequest } from '../../queued-request.js';
import { queuedRequest } from '../../../testing/builders.js';
import { GLOBAL_STRICT_FAIRNESS, createGlobalStrictFairness } from './global-strict.fairness.js';

const strict = createGlobalStrictFairness();
const flowView = (fairnessId: string, ordinal: number, head: QueuedRequest): FlowView => ({
  key: { fairnessId, priority: 0 },
  ordinal,
  length: 1,
  bytes: 1_000,
  head: () => head,
});
const queues = (ordering: OrderingPolicy) => {
  const band: BandSettings = { maxRequests: 0, maxBytes: 0, fairness: strict, ordering };
  return new FlowQueues<null>({ maxRequests: 0, maxBytes: 0, defaultRequestTtlUs: microsFromMillis(60_000), bands: new Map([[0, band]]), defaultBand: band });
};

describe('global-strict-fairness-policy', () => {
  it('is registered under its Endpoint Picker name and keeps no state', () => {
    expect(strict.name).toBe(GLOBAL_STRICT_FAIRNESS);
    expect(GLOBAL_STRICT_FAIRNESS).toBe('global-strict-fairness-policy');
    expect(strict.newState()).toBeNull();
  });

  it('serves the flow whose head is oldest across flows (FCFS), whatever the flows’ creation order', () => {
    const flows = [flowView('a', 0, queuedRequest({ seq: 40 })), flowView('b', 1, queuedRequest({ seq: 12 })), flowView('c', 2, queuedRequest({ seq: 30 }))];
    expect(strict.pick(flows, null, createFcfsOrdering())).toBe(flows[1]);
  });

  it('applies the band’s ordering to the heads: with EDF the earliest deadline wins', () => {
    const flows = [
      flowView('a', 0, queuedRequest({ seq: 1, ttlDeadlineUs: microsFromMillis(9_000) })),
      flowView('b', 1, queuedRequest({ seq: 2, ttlDeadlineUs: microsFromMillis(4_000) })),
      flowView('c', 2, queuedRequest({ seq: 3, ttlDeadlineUs: microsFromMillis(7_000) })),
    ];
    expect(strict.pick(flows, null, createEdfOrdering())).toBe(flows[1]);
    expect(strict.pick(flows, null, createFcfsOrdering())).toBe(flows[0]);
  });

  it('dispatches one global FCFS order across tenants: no isolation, a flood queued first is served first', () => {
    const q = queues(createFcfsOrdering());
    const arrivals = ['flood', 'flood', 'small', 'flood', 'other', 'small', 'flood'];
    arrivals.forEach((fairnessId, i) => q.enqueue({ id: `r${i}`, flow: { fairnessId, priority: 0 }, byteSize: 10, tokens: 1, arrivalUs: microsFromMillis(i), payload: null }, microsFromMillis(i)));
    const order: string[] = [];
    for (let next = q.peek(); next; next = q.peek()) {
      q.take(next);
      order.push(next.id);
    }
    expect(order).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6']);
  });
});
