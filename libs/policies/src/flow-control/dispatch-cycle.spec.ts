import { microsFromMillis } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { instanceView } from '../testing/builders.js';
import { runDispatchCycle } from './dispatch-cycle.js';
import { createRoundRobinFairness } from './fairness/round-robin/round-robin.fairness.js';
import { FlowQueues, type BandSettings } from './flow-queues.js';
import { InFlightLedger } from './in-flight-ledger.js';
import { createFcfsOrdering } from './ordering/fcfs/fcfs.ordering.js';
import type { PoolSignals } from './ports.js';
import type { QueuedRequest } from './queued-request.js';
import { createConcurrencyDetector } from './saturation/concurrency/concurrency.detector.js';
import { createUtilizationDetector } from './saturation/utilization/utilization.detector.js';

const band = (): BandSettings => ({ maxRequests: 0, maxBytes: 0, fairness: createRoundRobinFairness(), ordering: createFcfsOrdering() });
const queues = () =>
  new FlowQueues<null>({ maxRequests: 0, maxBytes: 0, defaultRequestTtlUs: microsFromMillis(60_000), bands: new Map([[4, band()], [3, band()], [-2, band()]]), defaultBand: band() });
const fill = (q: FlowQueues<null>, spec: readonly [id: string, priority: number, fairnessId: string][], nowMs = 0) => {
  for (const [id, priority, fairnessId] of spec) {
    const outcome = q.enqueue({ id, flow: { fairnessId, priority }, byteSize: 100, tokens: 1_000, arrivalUs: microsFromMillis(nowMs), payload: null }, microsFromMillis(nowMs));
    expect(outcome.ok).toBe(true);
  }
};
/** A detector stub that returns the given readings in turn (the last one after that). */
const readings = (...values: number[]) => {
  let calls = 0;
  const next = () => values[Math.min(calls++, values.length - 1)]!;
  return Object.assign(next, { calls: () => calls });
};
/** The PoolSignals a flow controller builds from its ledger and its endpoints at `nowMs`. */
const signalsFrom = (ledger: InFlightLedger, endpoints: PoolSignals['endpoints'], nowMs: () => number): PoolSignals => ({
  endpoints,
  get inFlightRequests() {
    return ledger.requests;
  },
  get inFlightTokens() {
    return ledger.tokens;
  },
  dispatchedWithin: (ageMs) => ledger.dispatchedWithin(microsFromMillis(nowMs()), ageMs),
  inFlightDispatchedWithin: (ageMs) => ledger.inFlightDispatchedWithin(microsFromMillis(nowMs()), ageMs),
});

describe('runDispatchCycle', () => {
  const spec: [string, number, string][] = [
    ['low1', -2, 'a'],
    ['mid-a1', 3, 'a'],
    ['mid-a2', 3, 'a'],
    ['mid-b1', 3, 'b'],
    ['high1', 4, 'c'],
    ['low2', -2, 'b'],
  ];

  it('is work-conserving: while not saturated it dispatches everything, in the three-tier order', () => {
    const q = queues();
    fill(q, spec);
    const sent: [string, number][] = [];
    const result = runDispatchCycle(q, () => 0.999, (item, reading) => sent.push([item.id, reading]));
    expect(result).toEqual({ dispatched: 6, stoppedBy: 'empty', saturation: 0.999 });
    expect(sent.map(([id]) => id)).toEqual(['high1', 'mid-a1', 'mid-b1', 'mid-a2', 'low1', 'low2']);
    expect(sent.every(([, reading]) => reading === 0.999)).toBe(true);
    expect(q.size).toBe(0);
  });

  it('with nothing queued dispatches nothing and reports empty', () => {
    expect(runDispatchCycle(queues(), () => 0.2, () => expect.unreachable())).toEqual({ dispatched: 0, stoppedBy: 'empty', saturation: 0.2 });
  });

  it('blocks at the head of the line: saturated at once, nothing is dispatched and the head is picked again', () => {
    const q = queues();
    fill(q, spec);
    const head = q.peek();
    const result = runDispatchCycle(q, () => 1, () => expect.unreachable());
    expect(result).toEqual({ dispatched: 0, stoppedBy: 'saturated', saturation: 1 });
    expect(q.size).toBe(6);
    expect(q.peek()).toBe(head);
    // No lower band and no other flow jumps ahead: the next cycle starts with the same request.
    const sent: string[] = [];
    runDispatchCycle(q, readings(0, 1), (item) => sent.push(item.id));
    expect(sent).toEqual(['high1']);
  });

  it('stops at the first saturated reading (≥ 1.0), leaving that head queued; round robin resumes where it stopped', () => {
    const q = queues();
    fill(q, spec);
    const detector = readings(0.1, 0.5, 0.9999, 1.0, 0);
    const sent: string[] = [];
    const result = runDispatchCycle(q, detector, (item) => sent.push(item.id));
    expect(result).toEqual({ dispatched: 3, stoppedBy: 'saturated', saturation: 1 });
    expect(sent).toEqual(['high1', 'mid-a1', 'mid-b1']);
    expect(detector.calls()).toBe(4);
    expect(q.peek()!.id).toBe('mid-a2');
    expect(runDispatchCycle(q, detector, (item) => sent.push(item.id)).dispatched).toBe(3);
    expect(sent.slice(3)).toEqual(['mid-a2', 'low1', 'low2']);
  });

  it('with a ledger fed by the dispatch callback, the concurrency detector stops after exactly endpoints · maxConcurrency', () => {
    const q = queues();
    fill(
      q,
      Array.from({ length: 50 }, (_, i) => [`r${i}`, i % 3 === 0 ? 4 : 3, `t${i % 4}`] as [string, number, string]),
    );
    const ledger = new InFlightLedger();
    let now = 1_000;
    const detector = createConcurrencyDetector({ maxConcurrency: 3, headroom: 0.5 }); // 2 · 3 · 1.5 = 9
    const signals = signalsFrom(ledger, [instanceView({ instanceId: 'i1' }), instanceView({ instanceId: 'i2' })], () => now);
    const sent: string[] = [];
    const dispatch = (item: QueuedRequest) => {
      ledger.dispatched(item.id, item.tokens, microsFromMillis(now), item.ttlDeadlineUs);
      sent.push(item.id);
    };
    const first = runDispatchCycle(q, () => detector.saturation(signals), dispatch);
    expect(first).toEqual({ dispatched: 9, stoppedBy: 'saturated', saturation: 1 });
    expect(ledger.requests).toBe(9);
    expect(q.size).toBe(41);
    // Two complete: exactly two more go.
    now += 500;
    expect(ledger.done(sent[0]!)).toBe(true);
    expect(ledger.done(sent[5]!)).toBe(true);
    expect(runDispatchCycle(q, () => detector.saturation(signals), dispatch)).toMatchObject({ dispatched: 2, stoppedBy: 'saturated' });
    expect(ledger.requests).toBe(9);
  });

  it('with a 100 ms old snapshot, the utilization detector holds a burst at queueDepthThreshold unseen dispatches', () => {
    const q = queues();
    fill(q, Array.from({ length: 20 }, (_, i) => [`r${i}`, 3, 'a'] as [string, number, string]));
    const ledger = new InFlightLedger();
    let now = 5_000;
    const detector = createUtilizationDetector({}); // queueDepthThreshold 5
    const signals = signalsFrom(ledger, [instanceView({ instanceId: 'i1', snapshotAgeUs: microsFromMillis(100) })], () => now);
    const dispatch = (item: QueuedRequest) => ledger.dispatched(item.id, item.tokens, microsFromMillis(now), item.ttlDeadlineUs);
    // Each dispatch adds 1/5 until the 5th reads 1.0.
    expect(runDispatchCycle(q, () => detector.saturation(signals), dispatch)).toEqual({ dispatched: 5, stoppedBy: 'saturated', saturation: 1 });
    // 101 ms later a snapshot of the same age no longer lags those five: the next burst of five goes.
    now += 101;
    expect(runDispatchCycle(q, () => detector.saturation(signals), dispatch)).toMatchObject({ dispatched: 5, stoppedBy: 'saturated' });
  });
});
