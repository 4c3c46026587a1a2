import { microsFromMillis } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { InFlightLedger } from './in-flight-ledger.js';

describe('InFlightLedger', () => {
  it('counts requests and tokens from dispatch until done', () => {
    const ledger = new InFlightLedger();
    ledger.dispatched('a', 600, microsFromMillis(0), microsFromMillis(60_000));
    ledger.dispatched('b', 1_400, microsFromMillis(5), microsFromMillis(60_005));
    expect([ledger.requests, ledger.tokens]).toEqual([2, 2_000]);
    expect(ledger.done('a')).toBe(true);
    expect([ledger.requests, ledger.tokens]).toEqual([1, 1_400]);
    expect(ledger.done('a')).toBe(false);
    expect(ledger.done('never')).toBe(false);
    expect(ledger.done('b')).toBe(true);
    expect([ledger.requests, ledger.tokens]).toEqual([0, 0]);
  });

  it('ignores a second dispatch of the same id (no double count)', () => {
    const ledger = new InFlightLedger();
    ledger.dispatched('a', 600, microsFromMillis(0), microsFromMillis(60_000));
    ledger.dispatched('a', 600, microsFromMillis(10), microsFromMillis(60_010));
    expect([ledger.requests, ledger.tokens]).toEqual([1, 600]);
    expect(ledger.dispatchedWithin(microsFromMillis(10), microsFromMillis(100))).toBe(1);
  });

  it('forgets entries at their deadline and not before, returning their ids', () => {
    const ledger = new InFlightLedger();
    ledger.dispatched('a', 100, microsFromMillis(0), microsFromMillis(1_000));
    ledger.dispatched('b', 200, microsFromMillis(10), microsFromMillis(1_010));
    ledger.dispatched('c', 300, microsFromMillis(20), microsFromMillis(1_020));
    ledger.done('b');
    expect(ledger.expire(microsFromMillis(999))).toEqual([]);
    expect(ledger.expire(microsFromMillis(1_010))).toEqual(['a']);
    expect([ledger.requests, ledger.tokens]).toEqual([1, 300]);
    expect(ledger.expire(microsFromMillis(5_000))).toEqual(['c']);
    expect([ledger.requests, ledger.tokens]).toEqual([0, 0]);
    expect(ledger.done('c')).toBe(false);
  });

  it('forgets every entry past its deadline, whatever the order of deadlines', () => {
    // A long request dispatched first must not shield a lost short one behind it: the short one's
    // deadline passes, it must leave the books, or the concurrency detector counts it for ever.
    const ledger = new InFlightLedger();
    ledger.dispatched('long', 1_000, microsFromMillis(0), microsFromMillis(600_000));
    ledger.dispatched('short-lost', 50, microsFromMillis(10), microsFromMillis(1_010));
    ledger.dispatched('mid', 200, microsFromMillis(20), microsFromMillis(30_020));
    expect(ledger.expire(microsFromMillis(1_009))).toEqual([]);
    expect(ledger.expire(microsFromMillis(1_010))).toEqual(['short-lost']);
    expect([ledger.requests, ledger.tokens]).toEqual([2, 1_200]);
    expect(ledger.expire(microsFromMillis(30_020))).toEqual(['mid']);
    expect(ledger.expire(microsFromMillis(599_999))).toEqual([]);
    expect(ledger.expire(microsFromMillis(600_000))).toEqual(['long']);
    expect(ledger.requests).toBe(0);
  });

  it('does not forget an entry that was done and then dispatched again under the same id', () => {
    const ledger = new InFlightLedger();
    ledger.dispatched('a', 100, microsFromMillis(0), microsFromMillis(1_000));
    ledger.done('a');
    ledger.dispatched('a', 100, microsFromMillis(500), microsFromMillis(9_000));
    expect(ledger.expire(microsFromMillis(1_000))).toEqual([]);
    expect(ledger.requests).toBe(1);
    expect(ledger.expire(microsFromMillis(9_000))).toEqual(['a']);
  });

  it('stays exact over many dispatches, done and expiries', () => {
    const ledger = new InFlightLedger();
    // 10 000 dispatches 1 ms apart, deadlines alternating 1 s and 10 s; every third is done at once.
    for (let i = 0; i < 10_000; i++) {
      ledger.dispatched(`r${i}`, 1, microsFromMillis(i), microsFromMillis(i + (i % 2 === 0 ? 1_000 : 10_000)));
      if (i % 3 === 0) ledger.done(`r${i}`);
    }
    const live = (deadline: (i: number) => boolean) => Array.from({ length: 10_000 }, (_, i) => i).filter((i) => i % 3 !== 0 && deadline(i));
    const dueBy = (now: number) => live((i) => i + (i % 2 === 0 ? 1_000 : 10_000) <= now);
    const expected = dueBy(6_000);
    expect(ledger.expire(microsFromMillis(6_000)).sort()).toEqual(expected.map((i) => `r${i}`).sort());
    expect(ledger.requests).toBe(live(() => true).length - expected.length);
    const remaining = ledger.requests; // one token each
    expect(ledger.tokens).toBe(remaining);
    expect(ledger.expire(microsFromMillis(20_000))).toHaveLength(remaining);
    expect([ledger.requests, ledger.tokens]).toEqual([0, 0]);
  });

  it('stays exact when most entries are done long before their deadline (the deadline index is rebuilt)', () => {
    const ledger = new InFlightLedger();
    for (let i = 0; i < 3_000; i++) ledger.dispatched(`r${i}`, 2, microsFromMillis(i), microsFromMillis(1_000_000 - i)); // deadlines in reverse dispatch order
    for (let i = 0; i < 3_000; i++) if (i % 30 !== 0) ledger.done(`r${i}`);
    expect([ledger.requests, ledger.tokens]).toEqual([100, 200]);
    const survivors = Array.from({ length: 100 }, (_, k) => 30 * k);
    // Earliest deadline first: the last dispatched goes first.
    expect(ledger.expire(microsFromMillis(1_000_000 - 1_500))).toEqual(survivors.filter((i) => i >= 1_500).reverse().map((i) => `r${i}`));
    expect(ledger.expire(microsFromMillis(1_000_000))).toEqual(survivors.filter((i) => i < 1_500).reverse().map((i) => `r${i}`));
    expect([ledger.requests, ledger.tokens]).toEqual([0, 0]);
  });

  it('dispatchedWithin counts dispatches in the last ageUs, inclusive, done or not', () => {
    const ledger = new InFlightLedger();
    for (const [id, t] of [['a', 0], ['b', 10], ['c', 20], ['d', 30]] as const) ledger.dispatched(id, 1, microsFromMillis(t), microsFromMillis(t + 60_000));
    ledger.done('c');
    expect(ledger.dispatchedWithin(microsFromMillis(30), microsFromMillis(0))).toBe(1);
    expect(ledger.dispatchedWithin(microsFromMillis(30), microsFromMillis(9))).toBe(1);
    expect(ledger.dispatchedWithin(microsFromMillis(30), microsFromMillis(10))).toBe(2);
    expect(ledger.dispatchedWithin(microsFromMillis(30), microsFromMillis(30))).toBe(4);
    expect(ledger.dispatchedWithin(microsFromMillis(100), microsFromMillis(69))).toBe(0);
    expect(ledger.dispatchedWithin(microsFromMillis(100), microsFromMillis(70))).toBe(1);
    expect(ledger.dispatchedWithin(microsFromMillis(30), microsFromMillis(-1))).toBe(0);
    expect(ledger.dispatchedWithin(microsFromMillis(30), microsFromMillis(Number.NaN))).toBe(0);
    expect(ledger.dispatchedWithin(microsFromMillis(30), microsFromMillis(Number.POSITIVE_INFINITY))).toBe(4);
  });

  it('inFlightDispatchedWithin leaves out the dispatches reported done or forgotten since', () => {
    const ledger = new InFlightLedger();
    for (const [id, t] of [['a', 0], ['b', 10], ['c', 20], ['d', 30]] as const) ledger.dispatched(id, 1, microsFromMillis(t), microsFromMillis(t + 100));
    ledger.done('c');
    ledger.done('c'); // twice: counted once
    expect(ledger.inFlightDispatchedWithin(microsFromMillis(30), microsFromMillis(30))).toBe(3);
    expect(ledger.inFlightDispatchedWithin(microsFromMillis(30), microsFromMillis(10))).toBe(1);
    expect(ledger.dispatchedWithin(microsFromMillis(30), microsFromMillis(10))).toBe(2);
    ledger.expire(microsFromMillis(105)); // a's deadline
    expect(ledger.inFlightDispatchedWithin(microsFromMillis(105), microsFromMillis(105))).toBe(2);
  });

  it('inFlightDispatchedWithin stays exact over many dispatches, as old ones are pruned and marks land anywhere', () => {
    const ledger = new InFlightLedger(microsFromMillis(1_000));
    const open = new Set<number>();
    for (let i = 0; i < 20_000; i++) {
      ledger.dispatched(`r${i}`, 1, microsFromMillis(i), microsFromMillis(i + 1e9));
      open.add(i);
      // Finish an earlier request in a scattered order (the 7th-previous, every other time).
      if (i % 2 === 0 && open.has(i - 7)) {
        ledger.done(`r${i - 7}`);
        open.delete(i - 7);
      }
      if (i % 997 === 0) {
        const expected = [...open].filter((t) => t >= i - 500).length;
        expect(ledger.inFlightDispatchedWithin(microsFromMillis(i), microsFromMillis(500))).toBe(expected);
      }
    }
  });

  it('looks back at most recentWindowUs, and stays exact as old dispatch times are pruned', () => {
    const ledger = new InFlightLedger(microsFromMillis(100));
    ledger.dispatched('old', 1, microsFromMillis(0), microsFromMillis(1e9));
    ledger.dispatched('new', 1, microsFromMillis(200), microsFromMillis(1e9));
    expect(ledger.dispatchedWithin(microsFromMillis(200), microsFromMillis(1_000))).toBe(1);
    const pruning = new InFlightLedger(microsFromMillis(50));
    for (let i = 0; i < 5_000; i++) pruning.dispatched(`r${i}`, 1, microsFromMillis(i), microsFromMillis(1e9));
    expect(pruning.dispatchedWithin(microsFromMillis(4_999), microsFromMillis(49))).toBe(50);
    expect(pruning.dispatchedWithin(microsFromMillis(4_999), microsFromMillis(10))).toBe(11);
    expect(pruning.dispatchedWithin(microsFromMillis(4_999), microsFromMillis(0))).toBe(1);
  });
});
