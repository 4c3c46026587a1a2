import { micros } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { InFlightLedger } from './in-flight-ledger.js';

const SETTLE = micros(3_000);
const ledger = (maxPerModel = 1_000) => new InFlightLedger({ settleUs: SETTLE, maxAgeUs: micros(1_000_000), maxPerModel });

describe('InFlightLedger', () => {
  it('counts what it admitted until every report was taken a settle time after the admission', () => {
    const l = ledger();
    l.admitted('m', micros(10_000));
    l.admitted('m', micros(20_000));
    // Reports from before any admission show neither.
    expect(l.unseen('m', 9_000, micros(21_000))).toBe(2);
    // Taken 1 ms after the first: it may have been taken before the request arrived.
    expect(l.unseen('m', 11_000, micros(21_000))).toBe(2);
    // 3 ms after the first (its settle time): it is in that report.
    expect(l.unseen('m', 13_000, micros(25_000))).toBe(1);
    expect(l.unseen('m', 23_000, micros(25_000))).toBe(0);
    expect(l.size).toBe(0);
  });

  it('keeps models apart', () => {
    const l = ledger();
    l.admitted('a', micros(0));
    l.admitted('b', micros(0));
    expect(l.unseen('a', 10_000, micros(10_000))).toBe(0);
    expect(l.unseen('b', Number.NEGATIVE_INFINITY, micros(10_000))).toBe(1);
  });

  it('with no report at all (an instance never reported) an entry still leaves after its maximum age', () => {
    const l = ledger();
    l.admitted('m', micros(0));
    expect(l.unseen('m', Number.NEGATIVE_INFINITY, micros(1_000_000))).toBe(1);
    expect(l.unseen('m', Number.NEGATIVE_INFINITY, micros(1_000_001))).toBe(0);
  });

  it('holds at most maxPerModel entries, the oldest leaving first, however large the burst', () => {
    const l = ledger(100);
    for (let i = 0; i < 10_000; i++) l.admitted('m', micros(i));
    expect(l.size).toBe(100);
    // The 100 kept are the newest (9900..9999): a watermark past 9950 + settle retires the older half.
    expect(l.unseen('m', 9_949 + 3_000, micros(10_000))).toBe(50);
  });

  it('keeps its memory bounded when nothing asks for the count (a chain without a predictive check), and empties by age at the sweep', () => {
    const l = ledger(100);
    for (let i = 0; i < 100_000; i++) l.admitted('m', micros(i));
    expect(l.size).toBe(100);
    expect(l.slots).toBeLessThanOrEqual(2 * 100 + 64);
    l.expire(micros(99_999 + 1_000_001));
    expect(l.size).toBe(0);
    expect(l.slots).toBe(0);
  });
});
