import { microsFromMillis } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { queuedRequest } from '../../../testing/builders.js';
import { Heap } from '@sluice/collections';
import type { QueuedRequest } from '../../queued-request.js';
import { SLO_DEADLINE_ORDERING, createSloDeadlineOrdering } from './slo-deadline.ordering.js';

describe('slo-deadline-ordering-policy', () => {
  const slo = createSloDeadlineOrdering();

  it('is registered under its Endpoint Picker name', () => {
    expect(slo.name).toBe(SLO_DEADLINE_ORDERING);
    expect(SLO_DEADLINE_ORDERING).toBe('slo-deadline-ordering-policy');
  });

  it('serves the earliest arrival + x-slo-ttft-ms first; requests without one go last, FCFS among themselves', () => {
    // Arrivals 0, 5, 10, 15, 20, 25 ms. With TTFT SLOs of 500, 100 and 2000 ms the deadlines are
    // 505, 110 and 2025; the three without the header go behind them in enqueue order.
    const list = [
      queuedRequest({ seq: 0, id: 'none-1', arrivalUs: microsFromMillis(0) }),
      queuedRequest({ seq: 1, id: 'slo-505', arrivalUs: microsFromMillis(5), sloDeadlineUs: microsFromMillis(505) }),
      queuedRequest({ seq: 2, id: 'none-2', arrivalUs: microsFromMillis(10) }),
      queuedRequest({ seq: 3, id: 'slo-110', arrivalUs: microsFromMillis(10), sloDeadlineUs: microsFromMillis(110) }),
      queuedRequest({ seq: 4, id: 'slo-2025', arrivalUs: microsFromMillis(25), sloDeadlineUs: microsFromMillis(2_025) }),
      queuedRequest({ seq: 5, id: 'none-3', arrivalUs: microsFromMillis(25) }),
    ];
    const heap = new Heap<QueuedRequest>((a, b) => slo.compare(a, b));
    for (const item of [...list].reverse()) heap.push(item);
    const order: string[] = [];
    while (heap.size > 0) order.push(heap.pop()!.id);
    expect(order).toEqual(['slo-110', 'slo-505', 'slo-2025', 'none-1', 'none-2', 'none-3']);
  });

  it('a request without a deadline goes behind even a very late deadline', () => {
    const none = queuedRequest({ seq: 0 });
    const late = queuedRequest({ seq: 1, sloDeadlineUs: microsFromMillis(Number.MAX_SAFE_INTEGER) });
    expect(slo.compare(late, none)).toBeLessThan(0);
    expect(slo.compare(none, late)).toBeGreaterThan(0);
  });

  it('ignores the TTL deadline and breaks equal SLO deadlines by enqueue order', () => {
    const a = queuedRequest({ seq: 1, sloDeadlineUs: microsFromMillis(300), ttlDeadlineUs: microsFromMillis(90_000) });
    const b = queuedRequest({ seq: 2, sloDeadlineUs: microsFromMillis(300), ttlDeadlineUs: microsFromMillis(1_000) });
    expect(slo.compare(a, b)).toBeLessThan(0);
    expect(slo.compare(b, a)).toBeGreaterThan(0);
  });
});
