import { microsFromMillis } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { queuedRequest } from '../../../testing/builders.js';
import { Heap } from '@sluice/collections';
import type { OrderingPolicy } from '../../ports.js';
import type { QueuedRequest } from '../../queued-request.js';
import { createFcfsOrdering } from '../fcfs/fcfs.ordering.js';
import { EDF_ORDERING, createEdfOrdering } from './edf.ordering.js';

const drain = (policy: OrderingPolicy, list: readonly QueuedRequest[]) => {
  const heap = new Heap<QueuedRequest>((a, b) => policy.compare(a, b));
  for (const item of list) heap.push(item);
  const ids: string[] = [];
  while (heap.size > 0) ids.push(heap.pop()!.id);
  return ids;
};

describe('edf-ordering-policy', () => {
  const edf = createEdfOrdering();

  it('is registered under its Endpoint Picker name', () => {
    expect(edf.name).toBe(EDF_ORDERING);
    expect(EDF_ORDERING).toBe('edf-ordering-policy');
  });

  it('serves the earliest TTL deadline first, where FCFS serves the earliest enqueue', () => {
    // Enqueued at 0, 10, 20 ms with TTLs 60 s, 5 s, 30 s: deadlines 60 000, 5 010, 30 020.
    const list = [
      queuedRequest({ seq: 0, id: 'a', enqueuedAtUs: microsFromMillis(0), ttlDeadlineUs: microsFromMillis(60_000) }),
      queuedRequest({ seq: 1, id: 'b', enqueuedAtUs: microsFromMillis(10), ttlDeadlineUs: microsFromMillis(5_010) }),
      queuedRequest({ seq: 2, id: 'c', enqueuedAtUs: microsFromMillis(20), ttlDeadlineUs: microsFromMillis(30_020) }),
    ];
    expect(drain(edf, list)).toEqual(['b', 'c', 'a']);
    expect(drain(createFcfsOrdering(), list)).toEqual(['a', 'b', 'c']);
  });

  it('with one TTL for every request it is FCFS', () => {
    const list = [5, 1, 4, 2, 3].map((seq) => queuedRequest({ seq, id: `r${seq}`, enqueuedAtUs: microsFromMillis(seq * 7), ttlDeadlineUs: microsFromMillis(seq * 7 + 60_000) }));
    expect(drain(edf, list)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
  });

  it('ignores the SLO deadline', () => {
    const noSlo = queuedRequest({ seq: 0, ttlDeadlineUs: microsFromMillis(1_000) });
    const urgentSlo = queuedRequest({ seq: 1, ttlDeadlineUs: microsFromMillis(2_000), sloDeadlineUs: microsFromMillis(10) });
    expect(edf.compare(noSlo, urgentSlo)).toBeLessThan(0);
  });

  it('breaks equal deadlines by enqueue order', () => {
    const a = queuedRequest({ seq: 3, ttlDeadlineUs: microsFromMillis(1_000) });
    const b = queuedRequest({ seq: 9, ttlDeadlineUs: microsFromMillis(1_000) });
    expect(edf.compare(a, b)).toBeLessThan(0);
    expect(edf.compare(b, a)).toBeGreaterThan(0);
  });
});
