import { microsFromMillis } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { queuedRequest } from '../../../testing/builders.js';
import { FCFS_ORDERING, createFcfsOrdering } from './fcfs.ordering.js';

describe('fcfs-ordering-policy', () => {
  const fcfs = createFcfsOrdering();

  it('is registered under its Endpoint Picker name', () => {
    expect(fcfs.name).toBe(FCFS_ORDERING);
    expect(FCFS_ORDERING).toBe('fcfs-ordering-policy');
  });

  it('orders by enqueue sequence alone, whatever the deadlines say', () => {
    const early = queuedRequest({ seq: 1, ttlDeadlineUs: microsFromMillis(90_000), sloDeadlineUs: microsFromMillis(5_000) });
    const late = queuedRequest({ seq: 2, ttlDeadlineUs: microsFromMillis(1_000), sloDeadlineUs: microsFromMillis(100) });
    expect(fcfs.compare(early, late)).toBeLessThan(0);
    expect(fcfs.compare(late, early)).toBeGreaterThan(0);
  });
});
