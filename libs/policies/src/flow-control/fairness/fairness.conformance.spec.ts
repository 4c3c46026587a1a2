import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { queuedRequest } from '../../testing/builders.js';
import { createFcfsOrdering } from '../ordering/fcfs/fcfs.ordering.js';
import type { FairnessPolicy, FlowView } from '../ports.js';
import type { QueuedRequest } from '../queued-request.js';
import { createFlowControlRegistry } from '../registry.js';

const fcfs = createFcfsOrdering();

/**
 * A band as a fairness policy sees it, without FlowQueues: flows in creation order, each a FIFO of
 * requests; an empty flow leaves, and one that comes back gets a new, higher ordinal.
 */
class StubBand {
  private readonly flows: (FlowView & { items: QueuedRequest[] })[] = [];
  private nextOrdinal = 0;
  private seq = 0;

  add(fairnessId: string, count = 1): void {
    let flow = this.flows.find((f) => f.key.fairnessId === fairnessId);
    if (!flow) {
      const items: QueuedRequest[] = [];
      flow = {
        key: { fairnessId, priority: 0 },
        ordinal: this.nextOrdinal++,
        items,
        get length() {
          return items.length;
        },
        get bytes() {
          return items.length * 1_000;
        },
        head: () => items[0]!,
      };
      this.flows.push(flow);
    }
    for (let i = 0; i < count; i++) {
      const seq = this.seq++;
      flow.items.push(queuedRequest({ seq, id: `${fairnessId}-${seq}`, flow: flow.key }));
    }
  }

  view(): readonly FlowView[] {
    return [...this.flows];
  }

  /** Dispatches the head of `flow` and tells the policy, as FlowQueues.take does. */
  dispatch(policy: FairnessPolicy, state: unknown, flow: FlowView): QueuedRequest {
    const own = this.flows.find((f) => f === flow)!;
    policy.dispatched(state, flow);
    const item = own.items.shift()!;
    if (own.items.length === 0) this.flows.splice(this.flows.indexOf(own), 1);
    return item;
  }
}

/** The FairnessPolicy contract, over every registered fairness policy (FCFS ordering). */
describe.each(createFlowControlRegistry().fairness.names())('FairnessPolicy conformance: %s', (name) => {
  const policy = createFlowControlRegistry().fairness.create(name, {});

  it('is named by its registry name', () => {
    expect(policy.name).toBe(name);
  });

  it('returns null when there are no flows', () => {
    expect(policy.pick([], policy.newState(), fcfs)).toBeNull();
  });

  it('returns one of the given flows, and picking twice gives the same flow and leaves the state as it was', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 8 }), fc.nat({ max: 30 }), (sizes, served) => {
        const band = new StubBand();
        sizes.forEach((n, i) => band.add(`t${i}`, n));
        const state = policy.newState();
        // Advance the state by some dispatches first, so the check is not only about a fresh state.
        for (let i = 0; i < served && band.view().length > 0; i++) band.dispatch(policy, state, policy.pick(band.view(), state, fcfs)!);
        const flows = band.view();
        if (flows.length === 0) return;
        const before = structuredClone(state);
        const first = policy.pick(flows, state, fcfs);
        expect(flows).toContain(first);
        expect(policy.pick(flows, state, fcfs)).toBe(first);
        expect(state).toEqual(before);
      }),
      { numRuns: 200 },
    );
  });

  it('always picks a single flow', () => {
    const band = new StubBand();
    band.add('only', 50);
    const state = policy.newState();
    for (let i = 0; i < 50; i++) {
      const flows = band.view();
      expect(flows).toHaveLength(1);
      const picked = policy.pick(flows, state, fcfs)!;
      expect(picked).toBe(flows[0]);
      expect(band.dispatch(policy, state, picked).id).toBe(`only-${i}`);
    }
    expect(band.view()).toHaveLength(0);
  });

  it('starves no flow: while one tenant floods, every other flow with work is served', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 4 }), (sizes, floodRate) => {
        const band = new StubBand();
        band.add('flood', 20);
        sizes.forEach((n, i) => band.add(`small${i}`, n));
        const waiting = sizes.reduce((a, b) => a + b, 0);
        const state = policy.newState();
        const served = new Map<string, number>();
        // Bounded: the small flows hold `waiting` requests and the flood's backlog is 20, so any
        // policy that serves each flow in finite time empties the small flows within this many steps.
        const bound = (waiting + 20) * (sizes.length + 1) * (floodRate + 1);
        for (let step = 0; step < bound && band.view().some((f) => f.key.fairnessId !== 'flood'); step++) {
          const picked = policy.pick(band.view(), state, fcfs)!;
          const item = band.dispatch(policy, state, picked);
          served.set(item.flow.fairnessId, (served.get(item.flow.fairnessId) ?? 0) + 1);
          band.add('flood', floodRate);
        }
        sizes.forEach((n, i) => expect(served.get(`small${i}`)).toBe(n));
      }),
      { numRuns: 100 },
    );
  });
});
