import { microsFromMillis, type Micros } from '@sluice/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FlowRegistry } from './flow-registry.js';

const ms = (t: number): Micros => microsFromMillis(t);
const flow = (fairnessId: string, priority = 3) => ({ fairnessId, priority });

describe('FlowRegistry: idle flows are collected', () => {
  it('forgets a flow once it has had nothing queued for the GC timeout, not before', () => {
    const flows = new FlowRegistry({ maxFlows: 0, gcTimeoutUs: ms(1_000) });
    flows.arrive(flow('a'), ms(0));
    flows.enqueued(flow('a'));
    expect(flows.collect(ms(5_000))).toEqual([]); // queued work: never collected, however long
    flows.leftQueue(flow('a'), ms(5_000));
    expect(flows.collect(ms(5_999))).toEqual([]);
    expect(flows.collect(ms(6_000))).toEqual([flow('a')]);
    expect(flows.size).toBe(0);
    expect(flows.hasPriority(3)).toBe(false);
  });

  it('an arrival restarts an idle flow’s clock; flows are collected in the order they went idle', () => {
    const flows = new FlowRegistry({ maxFlows: 0, gcTimeoutUs: ms(1_000) });
    flows.arrive(flow('a'), ms(0));
    flows.arrive(flow('b', 4), ms(100));
    flows.arrive(flow('a'), ms(500)); // a passed through (legacy mode) or was refused: touched again
    expect(flows.collect(ms(1_200))).toEqual([flow('b', 4)]);
    expect(flows.hasPriority(4)).toBe(false);
    expect(flows.collect(ms(1_500))).toEqual([flow('a')]);
  });

  it('a flow keeps its registration while any of its requests is queued', () => {
    const flows = new FlowRegistry({ maxFlows: 0, gcTimeoutUs: ms(10) });
    flows.arrive(flow('a'), ms(0));
    flows.enqueued(flow('a'));
    flows.arrive(flow('a'), ms(1));
    flows.enqueued(flow('a'));
    flows.leftQueue(flow('a'), ms(2));
    expect(flows.collect(ms(100))).toEqual([]);
    flows.leftQueue(flow('a'), ms(100));
    expect(flows.collect(ms(110))).toEqual([flow('a')]);
  });
});

describe('FlowRegistry: the cap on distinct flows', () => {
  it('past maxFlows, a new flow takes the place of the one idle longest', () => {
    const flows = new FlowRegistry({ maxFlows: 2, gcTimeoutUs: ms(60_000) });
    flows.arrive(flow('a'), ms(0));
    flows.arrive(flow('b'), ms(1));
    expect(flows.arrive(flow('c'), ms(2))).toEqual({ ok: true, recycled: flow('a') });
    expect([flows.has(flow('a')), flows.has(flow('b')), flows.has(flow('c'))]).toEqual([false, true, true]);
  });

  it('refuses a new flow, naming the cap, only when every tracked flow has requests queued', () => {
    const flows = new FlowRegistry({ maxFlows: 2, gcTimeoutUs: ms(60_000) });
    for (const id of ['a', 'b']) {
      flows.arrive(flow(id), ms(0));
      flows.enqueued(flow(id));
    }
    expect(flows.arrive(flow('c'), ms(1))).toEqual({
      ok: false,
      maxFlows: 2,
      message: 'flow control tracks 2 flows, each with requests queued (maxFlows 2): a new flow is refused until one of them empties',
    });
    expect(flows.has(flow('c'))).toBe(false);
    // A tracked flow is never refused; once one empties, the newcomer takes its place.
    expect(flows.arrive(flow('a'), ms(2))).toEqual({ ok: true, recycled: undefined });
    flows.leftQueue(flow('b'), ms(3));
    expect(flows.arrive(flow('c'), ms(4))).toEqual({ ok: true, recycled: flow('b') });
  });

  it('0 means no cap', () => {
    const flows = new FlowRegistry({ maxFlows: 0, gcTimeoutUs: ms(1) });
    for (let i = 0; i < 5_000; i++) expect(flows.arrive(flow(`t${i}`), ms(0)).ok).toBe(true);
    expect(flows.size).toBe(5_000);
    expect(flows.collect(ms(1))).toHaveLength(5_000);
  });
});


const ops = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('arrive' as const), fairness: fc.nat(40), priority: fc.integer({ min: -1, max: 2 }) }),
    fc.record({ kind: fc.constant('leave' as const), fairness: fc.nat(40), priority: fc.integer({ min: -1, max: 2 }) }),
    fc.record({ kind: fc.constant('tick' as const), ms: fc.nat(500) }),
  ),
  { maxLength: 400 },
);

describe('FlowRegistry: properties', () => {
  it('never tracks more than maxFlows, never loses a flow with queued work, and collects every idle flow in the end', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 1_000 }), ops, (maxFlows, gcMs, script) => {
        const flows = new FlowRegistry({ maxFlows, gcTimeoutUs: ms(gcMs) });
        /** The model: queued requests per tracked flow. */
        const queued = new Map<string, number>();
        const id = (t: number, p: number) => `${p}/${t}`;
        let now = 0;
        for (const op of script) {
          if (op.kind === 'tick') {
            now += op.ms;
            for (const key of flows.collect(ms(now))) {
              const k = id(Number(key.fairnessId), key.priority);
              expect(queued.get(k)).toBe(0); // only idle flows go
              queued.delete(k);
            }
            continue;
          }
          const key = flow(String(op.fairness), op.priority);
          const k = id(op.fairness, op.priority);
          if (op.kind === 'arrive') {
            const verdict = flows.arrive(key, ms(now));
            if (!verdict.ok) {
              expect(queued.has(k)).toBe(false);
              expect([...queued.values()].every((n) => n > 0)).toBe(true);
              continue;
            }
            if (verdict.recycled) {
              const r = id(Number(verdict.recycled.fairnessId), verdict.recycled.priority);
              expect(queued.get(r)).toBe(0);
              queued.delete(r);
            }
            flows.enqueued(key);
            queued.set(k, (queued.get(k) ?? 0) + 1);
          } else if ((queued.get(k) ?? 0) > 0) {
            flows.leftQueue(key, ms(now));
            queued.set(k, queued.get(k)! - 1);
          }
          expect(flows.size).toBeLessThanOrEqual(maxFlows);
          expect(flows.size).toBe(queued.size);
        }
        // Everything leaves its queue; one GC timeout later nothing is tracked.
        for (const [k, n] of queued) {
          const [p, t] = k.split('/');
          for (let i = 0; i < n; i++) flows.leftQueue(flow(t!, Number(p)), ms(now));
        }
        flows.collect(ms(now + gcMs));
        expect(flows.size).toBe(0);
        expect(flows.idleCount).toBe(0);
        for (const p of [-1, 0, 1, 2]) expect(flows.hasPriority(p)).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});
