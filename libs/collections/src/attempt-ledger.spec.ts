import { describe, expect, it } from 'vitest';
import { AttemptLedger } from './attempt-ledger.js';

const us = (n: number) => n;
const DEADLINE = us(1_000);

describe('AttemptLedger', () => {
  it('serves each attempt once: a duplicate or an older attempt is not served', () => {
    const ledger = new AttemptLedger(us(500));
    expect(ledger.arrive('r', 0, DEADLINE, us(0))).toBe('serve');
    expect(ledger.arrive('r', 0, DEADLINE, us(1))).toBe('duplicate');
    expect(ledger.arrive('r', 1, DEADLINE, us(2))).toBe('supersede');
    expect(ledger.arrive('r', 0, DEADLINE, us(3))).toBe('stale');
    expect(ledger.isLive('r', 0)).toBe(false);
    expect(ledger.isLive('r', 1)).toBe(true);
    expect(ledger.latestAttempt('r')).toBe(1);
    expect(ledger.latestAttempt('unseen')).toBeUndefined();
  });

  it('keeps a cancel that comes first, so the late copy is not served, but a newer attempt is', () => {
    const ledger = new AttemptLedger(us(500));
    ledger.cancel('r', 0, us(0));
    expect(ledger.arrive('r', 0, DEADLINE, us(1))).toBe('cancelled');
    expect(ledger.arrive('r', 1, DEADLINE, us(2))).toBe('serve');
    ledger.cancel('r', undefined, us(3));
    expect(ledger.isLive('r', 1)).toBe(false);
    expect(ledger.arrive('r', 2, DEADLINE, us(4))).toBe('cancelled');
  });

  it('does not serve a request past its deadline', () => {
    const ledger = new AttemptLedger(us(500));
    expect(ledger.arrive('r', 0, DEADLINE, DEADLINE)).toBe('expired');
  });

  it('forgets entries at their deadline and tombstones after their lifetime', () => {
    const ledger = new AttemptLedger(us(500));
    ledger.arrive('a', 0, us(100), us(0));
    ledger.cancel('b', undefined, us(50));
    expect(ledger.size()).toBe(2);
    ledger.arrive('c', 0, us(2_000), us(100));
    expect(ledger.size()).toBe(2); // a forgotten at its deadline
    ledger.arrive('d', 0, us(2_000), us(600));
    expect(ledger.size()).toBe(2); // b's tombstone gone too
    expect(ledger.arrive('b', 0, us(2_000), us(601))).toBe('serve');
  });

  it('holds an entry no longer than maxHoldUs, whatever deadline the request carries, so a forged one cannot pin the ledger', () => {
    const ledger = new AttemptLedger(us(500), us(2_000));
    expect(ledger.arrive('forged', 0, us(Number.MAX_SAFE_INTEGER), us(0))).toBe('serve');
    for (let i = 0; i < 100; i++) ledger.arrive(`r${i}`, 0, us(1_000 + i), us(i));
    expect(ledger.size()).toBe(101);
    ledger.arrive('late', 0, us(5_000), us(2_200)); // the forged entry is due at 2,000, and so is everything behind it
    expect(ledger.size()).toBe(1);
    expect(ledger.arrive('forged', 0, us(Number.MAX_SAFE_INTEGER), us(2_300))).toBe('serve'); // forgotten
  });
});
