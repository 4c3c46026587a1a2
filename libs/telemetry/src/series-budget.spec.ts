import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SeriesBudget } from './series-budget.js';

function budget(limit: number, idleMs?: number) {
  const clock = { ms: 0 };
  const released: string[] = [];
  const b = new SeriesBudget(limit, { ...(idleMs !== undefined ? { idleMs } : {}), now: () => clock.ms, onRelease: (key) => released.push(key) });
  return { b, clock, released };
}

describe('SeriesBudget', () => {
  it('admits the first `limit` keys and refuses later ones', () => {
    const { b } = budget(2);
    expect(['a', 'b', 'a', 'c', 'b'].map((k) => b.admit(k))).toEqual([true, true, true, false, true]);
    expect(b.size).toBe(2);
  });

  it('never holds more than `limit` keys, whatever arrives, holds and ends', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 8 }), fc.array(fc.tuple(fc.constantFrom('admit', 'hold', 'unhold', 'tick'), fc.integer({ min: 0, max: 30 }))), (limit, ops) => {
        const { b, clock } = budget(limit, 10);
        for (const [op, n] of ops) {
          if (op === 'tick') clock.ms += n;
          else b[op](`k${n}`);
          if (b.size > limit) return false;
        }
        return true;
      }),
    );
  });

  it('releases a key idle for idleMs to make room, and removes its series', () => {
    const { b, clock, released } = budget(1, 1_000);
    expect(b.admit('a')).toBe(true);
    clock.ms = 999;
    expect(b.admit('b')).toBe(false);
    expect(released).toEqual([]);
    clock.ms = 1_999;
    expect(b.admit('b')).toBe(true);
    expect(released).toEqual(['a']);
    expect(b.has('a')).toBe(false);
  });

  it('a full budget looks for idle keys at most once a second, however many new keys arrive', () => {
    const { b, clock, released } = budget(1, 100);
    b.admit('a');
    clock.ms = 50;
    expect(b.admit('b')).toBe(false);
    clock.ms = 500;
    // Idle by now, but the last look was under a second ago: the newcomer folds into the overflow.
    expect(b.admit('c')).toBe(false);
    expect(b.sweep()).toBe(1);
    expect(released).toEqual(['a']);
    clock.ms = 2_000;
    b.admit('d');
    clock.ms = 3_100;
    expect(b.admit('e')).toBe(true);
    expect(released).toEqual(['a', 'd']);
  });

  it('never releases a key with a request in flight, however long ago it started', () => {
    const { b, clock, released } = budget(1, 1_000);
    b.admit('a');
    b.hold('a');
    clock.ms = 60_000;
    expect(b.sweep()).toBe(0);
    expect(b.admit('b')).toBe(false);
    b.unhold('a');
    clock.ms = 60_999;
    expect(b.sweep()).toBe(0);
    clock.ms = 61_000;
    expect(b.sweep()).toBe(1);
    expect(released).toEqual(['a']);
  });

  it('without idleMs only an explicit release frees a slot', () => {
    const { b, clock, released } = budget(1);
    b.admit('a');
    clock.ms = 1e9;
    expect(b.admit('b')).toBe(false);
    b.release('a');
    b.release('a');
    expect(released).toEqual(['a']);
    expect(b.admit('b')).toBe(true);
  });

  it('refuses a limit that is not a count', () => {
    expect(() => budget(-1)).toThrow(RangeError);
    expect(() => budget(1.5)).toThrow(RangeError);
  });
});
