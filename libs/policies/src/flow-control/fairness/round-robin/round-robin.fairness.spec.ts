import { microsFromMillis } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { FlowQueues, type BandSettings } from '../../flow-queues.js';
import { createFcfsOrdering } from '../../ordering/fcfs/fcfs.ordering.js';
import type { FlowView } from '../../ports.js';
import { queuedRequest } from '../../../testing/builders.js';
import { ROUND_ROBIN_FAIRNESS, createRoundRobinFairness } from './round-robin.fairness.js';

const rr = createRoundRobinFairness();
const fcfs = createFcfsOrdering();
const band: BandSettings = { maxRequests: 0, maxBytes: 0, fairness: rr, ordering: fcfs };
const queues = () => new FlowQueues<null>({ maxRequests: 0, maxBytes: 0, defaultRequestTtlUs: microsFromMillis(60_000), bands: new Map([[3, band]]), defaultBand: band });
const flowView = (fairnessId: string, ordinal: number): FlowView => ({
  key: { fairnessId, priority: 3 },
  ordinal,
  length: 1,
  bytes: 1_000,
  head: () => queuedRequest({ seq: ordinal }),
});

describe('round-robin-fairness-policy', () => {
  it('is registered under its Endpoint Picker name', () => {
    expect(rr.name).toBe(ROUND_ROBIN_FAIRNESS);
    expect(ROUND_ROBIN_FAIRNESS).toBe('round-robin-fairness-policy');
  });

  it('serves the flow after the last one served, by ordinal, and wraps around', () => {
    const flows = [flowView('a', 0), flowView('b', 2), flowView('c', 5)];
    const state = rr.newState();
    expect(rr.pick(flows, state, fcfs)).toBe(flows[0]);
    rr.dispatched(state, flows[0]!);
    expect(state).toEqual({ lastOrdinal: 0 });
    expect(rr.pick(flows, state, fcfs)).toBe(flows[1]);
    rr.dispatched(state, flows[1]!);
    expect(rr.pick(flows, state, fcfs)).toBe(flows[2]);
    rr.dispatched(state, flows[2]!);
    expect(rr.pick(flows, state, fcfs)).toBe(flows[0]);
    // The last one served left (ordinal 2 gone): the next ordinal above it is served.
    const state2 = { lastOrdinal: 2 };
    expect(rr.pick([flows[0]!, flows[2]!], state2, fcfs)).toBe(flows[2]);
  });

  it('alternates between a flooding flow and a small one: each gets half of the dispatches', () => {
    const q = queues();
    let n = 0;
    for (let i = 0; i < 1_000; i++) q.enqueue({ id: `flood${n++}`, flow: { fairnessId: 'flood', priority: 3 }, byteSize: 100, tokens: 1, arrivalUs: microsFromMillis(0), payload: null }, microsFromMillis(0));
    for (let i = 0; i < 10; i++) q.enqueue({ id: `small${n++}`, flow: { fairnessId: 'small', priority: 3 }, byteSize: 100, tokens: 1, arrivalUs: microsFromMillis(0), payload: null }, microsFromMillis(0));
    const order: string[] = [];
    for (let i = 0; i < 20; i++) {
      const next = q.peek()!;
      q.take(next);
      order.push(next.flow.fairnessId);
    }
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? 'flood' : 'small')));
    // The small tenant is done after 20 dispatches, though it arrived behind 1000 flood requests.
    expect(q.flowStats()).toEqual([{ fairnessId: 'flood', priority: 3, requests: 990, bytes: 99_000 }]);
  });

  it('keeps the shares even while the flood keeps arriving (3 per dispatch against 1)', () => {
    const q = queues();
    let n = 0;
    const add = (fairnessId: string) => q.enqueue({ id: `${fairnessId}${n++}`, flow: { fairnessId, priority: 3 }, byteSize: 100, tokens: 1, arrivalUs: microsFromMillis(0), payload: null }, microsFromMillis(0));
    add('flood');
    add('small');
    const served = { flood: 0, small: 0 };
    for (let i = 0; i < 400; i++) {
      const next = q.peek()!;
      q.take(next);
      served[next.flow.fairnessId as 'flood' | 'small']++;
      for (let k = 0; k < 3; k++) add('flood');
      if (i % 2 === 0) add('small'); // the small tenant sends one request every other dispatch
    }
    expect(served).toEqual({ flood: 200, small: 200 });
  });
});
