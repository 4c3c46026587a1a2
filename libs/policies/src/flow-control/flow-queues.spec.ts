import { microsFromMillis } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { createGlobalStrictFairness } from './fairness/global-strict/global-strict.fairness.js';
import { createRoundRobinFairness } from './fairness/round-robin/round-robin.fairness.js';
import { FlowQueues, type BandSettings, type EnqueueRequest, type FlowQueuesSettings } from './flow-queues.js';
import { createFcfsOrdering } from './ordering/fcfs/fcfs.ordering.js';
import { createSloDeadlineOrdering } from './ordering/slo-deadline/slo-deadline.ordering.js';
import type { QueuedRequest } from './queued-request.js';

const band = (overrides: Partial<BandSettings> = {}): BandSettings => ({
  maxRequests: 0,
  maxBytes: 0,
  fairness: createRoundRobinFairness(),
  ordering: createFcfsOrdering(),
  ...overrides,
});
const queues = (overrides: Partial<Omit<FlowQueuesSettings, 'bands'>> & { bands?: [number, BandSettings][] } = {}) =>
  new FlowQueues<string>({
    maxRequests: 0,
    maxBytes: 0,
    defaultRequestTtlUs: microsFromMillis(60_000),
    defaultBand: band(),
    ...overrides,
    bands: new Map(overrides.bands ?? [[4, band()], [3, band()], [-2, band()]]),
  });
const request = (id: string, priority: number, fairnessId = 'default', byteSize = 1_000, extra: Partial<EnqueueRequest<string>> = {}): EnqueueRequest<string> => ({
  id,
  flow: { fairnessId, priority },
  byteSize,
  tokens: 640,
  arrivalUs: microsFromMillis(0),
  payload: `payload of ${id}`,
  ...extra,
});
const enqueueOk = (q: FlowQueues<string>, r: EnqueueRequest<string>, nowMs = 0) => {
  const outcome = q.enqueue(r, microsFromMillis(nowMs));
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.item;
};
/** peek + take until empty (or `max`), returning the ids in dispatch order. */
const dispatchAll = (q: FlowQueues<string>, max = Number.POSITIVE_INFINITY) => {
  const ids: string[] = [];
  for (let next = q.peek(); next && ids.length < max; next = q.peek()) {
    q.take(next);
    ids.push(next.id);
  }
  return ids;
};
const ids = (items: readonly QueuedRequest[]) => items.map((i) => i.id);

describe('FlowQueues', () => {
  it('stamps what the caller does not bring: enqueue time, TTL deadline (from arrival), SLO deadline, sequence', () => {
    const q = queues({ defaultRequestTtlUs: microsFromMillis(30_000) });
    const a = enqueueOk(q, request('a', 3, 't', 1_000, { arrivalUs: microsFromMillis(990), sloTtftUs: microsFromMillis(250) }), 1_000);
    const b = enqueueOk(q, request('b', 3), 1_500);
    expect(a).toEqual({
      id: 'a',
      flow: { fairnessId: 't', priority: 3 },
      byteSize: 1_000,
      tokens: 640,
      arrivalUs: 990_000,
      enqueuedAtUs: 1_000_000,
      ttlDeadlineUs: 30_990_000,
      sloDeadlineUs: 1_240_000,
      seq: 0,
      payload: 'payload of a',
    });
    expect(b).toMatchObject({ enqueuedAtUs: 1_500_000, ttlDeadlineUs: 30_000_000, sloDeadlineUs: undefined, seq: 1 });
    expect(q.size).toBe(2);
    expect(q.bytes).toBe(2_000);
    expect(q.has('a')).toBe(true);
    expect(() => q.enqueue(request('a', 4), microsFromMillis(2_000))).toThrow('request a is already queued');
  });

  it('serves bands in strict priority order: a higher band always goes first, even when it arrives later', () => {
    const q = queues();
    enqueueOk(q, request('low1', -2));
    enqueueOk(q, request('mid1', 3));
    enqueueOk(q, request('low2', -2));
    enqueueOk(q, request('high1', 4));
    enqueueOk(q, request('mid2', 3));
    expect(dispatchAll(q, 2)).toEqual(['high1', 'mid1']);
    enqueueOk(q, request('high2', 4));
    expect(dispatchAll(q)).toEqual(['high2', 'mid2', 'low1', 'low2']);
    expect(q.peek()).toBeNull();
  });

  it('peek does not take: it returns the same request until take', () => {
    const q = queues();
    enqueueOk(q, request('a', 3, 't1'));
    enqueueOk(q, request('b', 3, 't2'));
    const first = q.peek();
    expect(q.peek()).toBe(first);
    expect(q.size).toBe(2);
    q.take(first!);
    expect(q.peek()!.id).toBe('b');
    expect(() => q.take(first!)).toThrow('request a is not queued');
  });

  describe('capacity', () => {
    it('rejects at once when the band would hold more than its maxRequests', () => {
      const q = queues({ bands: [[3, band({ maxRequests: 2 })]] });
      enqueueOk(q, request('a', 3));
      enqueueOk(q, request('b', 3, 'other'));
      expect(q.enqueue(request('c', 3), microsFromMillis(0))).toEqual({
        ok: false,
        reason: 'flow_capacity',
        exceeded: { scope: 'band', resource: 'requests', limit: 2 },
        message: 'flow control capacity: priority band 3 holds 2 requests (maxRequests 2)',
      });
      expect(q.has('c')).toBe(false);
      expect(q.size).toBe(2);
      // Room again once one is dispatched.
      q.take(q.peek()!);
      expect(q.enqueue(request('c', 3), microsFromMillis(0)).ok).toBe(true);
    });

    it('rejects at once when the band would hold more than its maxBytes', () => {
      const q = queues({ bands: [[3, band({ maxBytes: 2_500 })]] });
      enqueueOk(q, request('a', 3, 't', 1_000));
      enqueueOk(q, request('b', 3, 't', 1_500)); // exactly at the limit is allowed
      expect(q.enqueue(request('c', 3, 't', 1), microsFromMillis(0))).toEqual({
        ok: false,
        reason: 'flow_capacity',
        exceeded: { scope: 'band', resource: 'bytes', limit: 2_500 },
        message: 'flow control capacity: priority band 3 holds 2500 bytes (maxBytes 2500)',
      });
      // A request bigger than the whole limit never fits, even into an empty band.
      const empty = queues({ bands: [[3, band({ maxBytes: 2_500 })]] });
      expect(empty.enqueue(request('huge', 3, 't', 2_501), microsFromMillis(0))).toMatchObject({
        ok: false,
        exceeded: { scope: 'band', resource: 'bytes', limit: 2_500 },
        message: 'flow control capacity: priority band 3 holds 0 bytes (maxBytes 2500)',
      });
    });

    it('rejects at once when all bands together would hold more than the global maxRequests', () => {
      const q = queues({ maxRequests: 3 });
      enqueueOk(q, request('a', 4));
      enqueueOk(q, request('b', 3));
      enqueueOk(q, request('c', -2));
      expect(q.enqueue(request('d', 4), microsFromMillis(0))).toEqual({
        ok: false,
        reason: 'flow_capacity',
        exceeded: { scope: 'global', resource: 'requests', limit: 3 },
        message: 'flow control capacity: the flow controller holds 3 requests (maxRequests 3)',
      });
    });

    it('rejects at once when all bands together would hold more than the global maxBytes', () => {
      const q = queues({ maxBytes: 10_000 });
      enqueueOk(q, request('a', 4, 't', 6_000));
      enqueueOk(q, request('b', -2, 't', 3_000));
      expect(q.enqueue(request('c', 3, 't', 1_001), microsFromMillis(0))).toEqual({
        ok: false,
        reason: 'flow_capacity',
        exceeded: { scope: 'global', resource: 'bytes', limit: 10_000 },
        message: 'flow control capacity: the flow controller holds 9000 bytes (maxBytes 10000)',
      });
      expect(enqueueOk(q, request('c', 3, 't', 1_000)).id).toBe('c');
      expect(q.bytes).toBe(10_000);
    });

    it('names the band limit before the global one when both would be exceeded', () => {
      const q = queues({ maxRequests: 1, bands: [[3, band({ maxRequests: 1 })]] });
      enqueueOk(q, request('a', 3));
      expect(q.enqueue(request('b', 3), microsFromMillis(0))).toMatchObject({ ok: false, exceeded: { scope: 'band', resource: 'requests', limit: 1 } });
    });

    it('0 means no limit', () => {
      const q = queues();
      for (let i = 0; i < 5_000; i++) enqueueOk(q, request(`r${i}`, i % 2 === 0 ? 4 : -2, `t${i % 7}`, 1e6));
      expect(q.size).toBe(5_000);
      expect(q.bytes).toBe(5e9);
    });

    it('a full low band does not take space from a high band when each band has its own limit', () => {
      const q = queues({ maxRequests: 4, bands: [[4, band({ maxRequests: 2 })], [-2, band({ maxRequests: 2 })]] });
      enqueueOk(q, request('low1', -2));
      enqueueOk(q, request('low2', -2));
      expect(q.enqueue(request('low3', -2), microsFromMillis(0))).toMatchObject({ ok: false, exceeded: { scope: 'band', resource: 'requests', limit: 2 } });
      // The sheddable flood is held to its 2: the critical band still has its 2.
      expect(enqueueOk(q, request('high1', 4)).id).toBe('high1');
      expect(enqueueOk(q, request('high2', 4)).id).toBe('high2');
      expect(q.bandSizes()).toEqual([
        { priority: 4, requests: 2, bytes: 2_000 },
        { priority: -2, requests: 2, bytes: 2_000 },
      ]);
    });
  });

  describe('TTL', () => {
    it('evicts requests at their deadline and not before, oldest deadline first', () => {
      const q = queues({ defaultRequestTtlUs: microsFromMillis(1_000) });
      enqueueOk(q, request('a', -2), 0);
      enqueueOk(q, request('b', 4, 'default', 1_000, { arrivalUs: microsFromMillis(300) }), 300);
      enqueueOk(q, request('c', 3, 'default', 1_000, { arrivalUs: microsFromMillis(300) }), 300);
      expect(q.nextExpiryUs()).toBe(microsFromMillis(1_000));
      expect(q.expire(microsFromMillis(999))).toEqual([]);
      expect(q.size).toBe(3);
      expect(ids(q.expire(microsFromMillis(1_000)))).toEqual(['a']);
      expect(q.has('a')).toBe(false);
      expect(q.nextExpiryUs()).toBe(microsFromMillis(1_300));
      expect(q.expire(microsFromMillis(1_299))).toEqual([]);
      // Equal deadlines: in enqueue order, whatever their bands.
      const evicted = q.expire(microsFromMillis(5_000));
      expect(ids(evicted)).toEqual(['b', 'c']);
      expect(evicted[0]).toMatchObject({ ttlDeadlineUs: microsFromMillis(1_300), payload: 'payload of b' });
      expect(q.size).toBe(0);
      expect(q.bytes).toBe(0);
      expect(q.peek()).toBeNull();
      expect(q.nextExpiryUs()).toBeUndefined();
      expect(q.flowStats()).toEqual([]);
    });

    it('counts from the arrival at the gateway, hops before the enqueue included; an arrival stamped later than the enqueue (another host’s clock) from the enqueue', () => {
      const q = queues({ defaultRequestTtlUs: microsFromMillis(1_000) });
      const early = enqueueOk(q, request('early', 3, 'default', 1_000, { arrivalUs: microsFromMillis(100) }), 350);
      const skewed = enqueueOk(q, request('skewed', 3, 'default', 1_000, { arrivalUs: microsFromMillis(420) }), 400);
      expect([early.ttlDeadlineUs, skewed.ttlDeadlineUs]).toEqual([microsFromMillis(1_100), microsFromMillis(1_400)]);
      expect(ids(q.expire(microsFromMillis(1_100)))).toEqual(['early']);
    });

    it('does not evict what was dispatched or cancelled, and nextExpiryUs skips them', () => {
      const q = queues({ defaultRequestTtlUs: microsFromMillis(1_000) });
      enqueueOk(q, request('a', 3), 0);
      enqueueOk(q, request('b', 3, 'default', 1_000, { arrivalUs: microsFromMillis(100) }), 100);
      enqueueOk(q, request('c', 3, 'default', 1_000, { arrivalUs: microsFromMillis(200) }), 200);
      q.take(q.peek()!); // a
      q.remove('b');
      expect(q.nextExpiryUs()).toBe(microsFromMillis(1_200));
      expect(ids(q.expire(microsFromMillis(10_000)))).toEqual(['c']);
    });

    it('stays exact over many dispatches (the TTL index is compacted as dispatched entries pile up)', () => {
      const q = queues({ defaultRequestTtlUs: microsFromMillis(10_000) });
      for (let i = 0; i < 5_000; i++) enqueueOk(q, request(`r${i}`, 3, `t${i % 10}`, 1_000, { arrivalUs: microsFromMillis(i) }), i);
      // Dispatch 4 000 (round robin over 10 flows, FCFS in each: r0..r3999), cancel 500 more.
      expect(dispatchAll(q, 4_000)).toHaveLength(4_000);
      for (let i = 4_000; i < 4_500; i++) expect(q.remove(`r${i}`)!.id).toBe(`r${i}`);
      expect(q.size).toBe(500);
      expect(q.nextExpiryUs()).toBe(microsFromMillis(14_500));
      expect(q.expire(microsFromMillis(14_499))).toEqual([]);
      const evicted = q.expire(microsFromMillis(14_749));
      expect(ids(evicted)).toEqual(Array.from({ length: 250 }, (_, k) => `r${4_500 + k}`));
      expect(q.size).toBe(250);
      expect(q.nextExpiryUs()).toBe(microsFromMillis(14_750));
      expect(q.expire(microsFromMillis(Number.POSITIVE_INFINITY))).toHaveLength(250);
      expect(q.nextExpiryUs()).toBeUndefined();
    });
  });

  it('remove (cancel) takes a request out: peek skips it, and a second remove finds nothing', () => {
    const q = queues({ bands: [[3, band({ ordering: createSloDeadlineOrdering() })]] });
    enqueueOk(q, request('a', 3, 't', 1_000, { sloTtftUs: microsFromMillis(100) }));
    enqueueOk(q, request('b', 3, 't', 1_000, { sloTtftUs: microsFromMillis(200) }));
    enqueueOk(q, request('c', 3, 't', 1_000));
    expect(q.peek()!.id).toBe('a');
    expect(q.remove('a')).toMatchObject({ id: 'a', payload: 'payload of a' });
    expect(q.peek()!.id).toBe('b');
    // Removing a request from the middle of the flow: the head is unchanged, the order kept.
    expect(q.remove('c')!.id).toBe('c');
    expect(q.remove('a')).toBeUndefined();
    expect(q.remove('never')).toBeUndefined();
    expect(q.size).toBe(1);
    expect(q.flowStats()).toEqual([{ fairnessId: 't', priority: 3, requests: 1, bytes: 1_000 }]);
    expect(dispatchAll(q)).toEqual(['b']);
  });

  it('drain returns everything, highest band first, and leaves nothing', () => {
    const q = queues({ defaultRequestTtlUs: microsFromMillis(1_000) });
    enqueueOk(q, request('low', -2, 'x'));
    enqueueOk(q, request('mid-x1', 3, 'x'));
    enqueueOk(q, request('mid-y1', 3, 'y'));
    enqueueOk(q, request('mid-x2', 3, 'x'));
    enqueueOk(q, request('high', 4, 'y'));
    enqueueOk(q, request('other', 9));
    expect(ids(q.drain())).toEqual(['other', 'high', 'mid-x1', 'mid-x2', 'mid-y1', 'low']);
    expect(q.size).toBe(0);
    expect(q.bytes).toBe(0);
    expect(q.peek()).toBeNull();
    expect(q.flowStats()).toEqual([]);
    expect(q.bandSizes().every((b) => b.requests === 0 && b.bytes === 0)).toBe(true);
    expect(q.nextExpiryUs()).toBeUndefined();
    expect(q.expire(microsFromMillis(1e9))).toEqual([]);
    expect(q.drain()).toEqual([]);
  });

  it('flowStats lists flows with work by band then creation; bandSizes every band, highest first', () => {
    const q = queues();
    expect(q.bandSizes()).toEqual([
      { priority: 4, requests: 0, bytes: 0 },
      { priority: 3, requests: 0, bytes: 0 },
      { priority: -2, requests: 0, bytes: 0 },
    ]);
    enqueueOk(q, request('a', 3, 'tenant-b', 100));
    enqueueOk(q, request('b', 3, 'tenant-a', 200));
    enqueueOk(q, request('c', 3, 'tenant-b', 300));
    enqueueOk(q, request('d', -2, 'tenant-a', 400));
    enqueueOk(q, request('e', 4, 'tenant-c', 500));
    expect(q.flowStats()).toEqual([
      { fairnessId: 'tenant-c', priority: 4, requests: 1, bytes: 500 },
      { fairnessId: 'tenant-b', priority: 3, requests: 2, bytes: 400 },
      { fairnessId: 'tenant-a', priority: 3, requests: 1, bytes: 200 },
      { fairnessId: 'tenant-a', priority: -2, requests: 1, bytes: 400 },
    ]);
    expect(q.bandSizes()).toEqual([
      { priority: 4, requests: 1, bytes: 500 },
      { priority: 3, requests: 3, bytes: 600 },
      { priority: -2, requests: 1, bytes: 400 },
    ]);
    q.take(q.peek()!); // e: tenant-c's flow empties and leaves
    expect(q.flowStats().map((f) => f.fairnessId)).toEqual(['tenant-b', 'tenant-a', 'tenant-a']);
    expect(q.bandSizes()[0]).toEqual({ priority: 4, requests: 0, bytes: 0 });
  });

  it('retires an empty flow; when it comes back it joins at the end of the round-robin cycle', () => {
    const q = queues({ bands: [[3, band()]] });
    enqueueOk(q, request('b1', 3, 'B'));
    enqueueOk(q, request('b2', 3, 'B'));
    enqueueOk(q, request('a1', 3, 'A'));
    enqueueOk(q, request('c1', 3, 'C'));
    enqueueOk(q, request('c2', 3, 'C'));
    expect(dispatchAll(q, 2)).toEqual(['b1', 'a1']); // A is now empty: retired
    expect(q.flowStats().map((f) => f.fairnessId)).toEqual(['B', 'C']);
    enqueueOk(q, request('a2', 3, 'A'));
    expect(q.flowStats().map((f) => f.fairnessId)).toEqual(['B', 'C', 'A']);
    // Had A kept its place between B and C, the order would be c1, b2, a2, c2.
    expect(dispatchAll(q)).toEqual(['c1', 'a2', 'b2', 'c2']);
  });

  it('flows are per (fairness id, priority): the same tenant in two bands is two flows', () => {
    const q = queues();
    enqueueOk(q, request('x', 3, 'same'));
    enqueueOk(q, request('y', -2, 'same'));
    expect(q.flowStats()).toEqual([
      { fairnessId: 'same', priority: 3, requests: 1, bytes: 1_000 },
      { fairnessId: 'same', priority: -2, requests: 1, bytes: 1_000 },
    ]);
  });

  it('gives a priority not in the settings the default band, placed by priority', () => {
    const strict = createGlobalStrictFairness();
    const q = queues({ bands: [[4, band()], [-2, band()]], defaultBand: band({ maxRequests: 1, fairness: strict }) });
    enqueueOk(q, request('seven', 7));
    enqueueOk(q, request('zero', 0, 'z'));
    // The default band's limit applies to each such band on its own.
    expect(q.enqueue(request('zero2', 0, 'z'), microsFromMillis(0))).toMatchObject({
      ok: false,
      exceeded: { scope: 'band', resource: 'requests', limit: 1 },
      message: 'flow control capacity: priority band 0 holds 1 requests (maxRequests 1)',
    });
    enqueueOk(q, request('low', -2));
    enqueueOk(q, request('four', 4));
    expect(q.bandSizes().map((b) => b.priority)).toEqual([7, 4, 0, -2]);
    expect(dispatchAll(q)).toEqual(['seven', 'four', 'zero', 'low']);
    // A band created on demand stays (empty) once its work is gone, until no flow of its priority is tracked.
    expect(q.bandSizes()).toEqual([7, 4, 0, -2].map((priority) => ({ priority, requests: 0, bytes: 0 })));
    q.retireUnusedBands((priority) => priority === 0);
    expect(q.bandSizes().map((b) => b.priority)).toEqual([4, 0, -2]);
  });

  it('retireUnusedBands keeps a band that holds requests or that config lists', () => {
    const q = queues({ bands: [[4, band()]] });
    enqueueOk(q, request('a', 9));
    q.retireUnusedBands(() => false);
    expect(q.bandSizes().map((b) => b.priority)).toEqual([9, 4]);
    dispatchAll(q);
    q.retireUnusedBands(() => false);
    expect(q.bandSizes().map((b) => b.priority)).toEqual([4]);
    enqueueOk(q, request('b', 9));
    expect(dispatchAll(q)).toEqual(['b']);
  });
});
