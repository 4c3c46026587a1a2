import { describe, expect, it } from 'vitest';
import { checkConservation, conservation } from './conservation.js';
import type { Outcome, RequestRecord } from './types.js';

const rec = (id: string, outcome: Outcome, extra: Partial<RequestRecord> = {}): RequestRecord => ({
  id,
  fairnessId: 't',
  sloClass: 'c',
  arrivalMs: 0,
  outputTokens: 0,
  outcome,
  ...extra,
});

const records: RequestRecord[] = [
  rec('1', 'completed'),
  rec('2', 'completed'),
  rec('3', 'rejected', { stage: 'admission', reason: 'quota' }),
  rec('4', 'rejected', { stage: 'flow-control', reason: 'queue_full' }),
  rec('5', 'rejected', { stage: 'admission', reason: 'quota' }),
  rec('6', 'dropped', { reason: 'deadline' }),
  rec('7', 'failed', { reason: 'worker_lost' }),
  rec('8', 'failed'),
  rec('9', 'in_flight'),
];

describe('conservation', () => {
  it('keeps the books by outcome, stage and reason', () => {
    expect(conservation(records)).toEqual({
      requests: 9,
      completed: 2,
      rejected: { total: 3, byStage: { admission: 2, 'flow-control': 1 }, byReason: { queue_full: 1, quota: 2 } },
      dropped: { total: 1, byReason: { deadline: 1 } },
      failed: { total: 2, byReason: { unspecified: 1, worker_lost: 1 } },
      inFlight: 1,
    });
  });

  it('balances when every request is accounted once', () => {
    expect(checkConservation(conservation(records))).toEqual({ balanced: true, requests: 9, accounted: 9, difference: 0, problems: [] });
    expect(checkConservation(conservation(records, 9)).balanced).toBe(true);
    expect(checkConservation(conservation([])).balanced).toBe(true);
  });

  it('does not balance when a request left no record', () => {
    const check = checkConservation(conservation(records, 10));
    expect(check.balanced).toBe(false);
    expect(check).toMatchObject({ requests: 10, accounted: 9, difference: 1 });
    expect(check.problems).toEqual(['requests 10 ≠ accounted 9']);
  });

  it('does not balance when a request is recorded twice', () => {
    const check = checkConservation(conservation([...records, rec('9', 'completed')]));
    expect(check).toMatchObject({ balanced: false, requests: 9, accounted: 10, difference: -1 });
  });

  it('does not balance when a breakdown disagrees with its total', () => {
    const books = conservation(records);
    const check = checkConservation({ ...books, dropped: { total: 1, byReason: { deadline: 2 } } });
    expect(check.balanced).toBe(false);
    expect(check.difference).toBe(0);
    expect(check.problems).toEqual(['dropped.byReason sums to 2, total is 1']);
  });
});
