import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ABSENT, StringIntTable, hashOf } from './string-int-table.js';

describe('StringIntTable', () => {
  it('gets, overwrites and deletes', () => {
    const table = new StringIntTable(4);
    table.set('a', 1);
    table.set('b', 2);
    table.set('a', 3);
    expect([table.get('a'), table.get('b'), table.get('c'), table.size]).toEqual([3, 2, ABSENT, 2]);
    expect(table.delete('a')).toBe(true);
    expect(table.delete('a')).toBe(false);
    expect([table.has('a'), table.get('b'), table.size]).toEqual([false, 2, 1]);
  });

  it('keeps every key reachable when a deletion shifts a probe run that wraps past the end of the table', () => {
    // Capacity 8 (room for 4 keys): keys whose home slots are 6, 7 and 0, so the run 6, 7, 0 wraps.
    const withHome = (home: number) => Array.from({ length: 10_000 }, (_, i) => `key${i}`).find((k) => (hashOf(k) & 7) === home)!;
    const [a, b, c] = [withHome(6), withHome(7), withHome(0)];
    const table = new StringIntTable(4);
    table.set(a, 1);
    table.set(b, 2);
    table.set(c, 3);
    table.delete(a); // b and c are at their homes: neither may move into a's slot
    expect([table.get(a), table.get(b), table.get(c)]).toEqual([ABSENT, 2, 3]);
    const d = [...Array.from({ length: 10_000 }, (_, i) => `other${i}`)].find((k) => (hashOf(k) & 7) === 7)!;
    table.set(d, 4); // home 7, taken by b: lands on 1, past the wrap
    table.delete(b); // d must move back into 7, c must stay at 0
    expect([table.get(b), table.get(c), table.get(d)]).toEqual([ABSENT, 3, 4]);
  });

  it('refuses a value that is not a non-negative int32', () => {
    const table = new StringIntTable();
    for (const bad of [-1, 1.5, 2 ** 31, Number.NaN]) expect(() => table.set('k', bad)).toThrow(RangeError);
  });

  it('hashes long keys by their ends: 64-hex keys differing anywhere in the first or last 16 stay apart', () => {
    const table = new StringIntTable();
    const base = 'f'.repeat(64);
    for (let i = 0; i < 16; i++) table.set(base.slice(0, i) + '0' + base.slice(i + 1), i);
    for (let i = 0; i < 16; i++) expect(table.get(base.slice(0, i) + '0' + base.slice(i + 1))).toBe(i);
    expect(table.get(base)).toBe(ABSENT);
  });

  it('agrees with a Map through sets, overwrites, deletes and growth (fast-check)', () => {
    // A small key space over a small table: long probe runs that wrap around, and deletions in them.
    const key = fc.oneof(fc.integer({ min: 0, max: 40 }).map((k) => `k${k}`), fc.string({ maxLength: 40 }));
    // Each operation with the hash computed inside or passed in, as the indexes pass a kept one.
    const op = fc.tuple(fc.constantFrom('set', 'delete', 'get'), key, fc.integer({ min: 0, max: 1000 }), fc.boolean());
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const table = new StringIntTable(1);
        const model = new Map<string, number>();
        for (const [kind, k, value, passHash] of ops) {
          const hash = passHash ? hashOf(k) : undefined;
          if (kind === 'set') {
            table.set(k, value, hash);
            model.set(k, value);
          } else if (kind === 'delete') expect(table.delete(k, hash)).toBe(model.delete(k));
          expect(table.get(k, hash)).toBe(model.get(k) ?? ABSENT);
          expect(table.size).toBe(model.size);
        }
        for (const [k, v] of model) expect(table.get(k)).toBe(v);
        const seen = new Map<string, number>();
        table.forEach((k, v) => seen.set(k, v));
        expect(seen).toEqual(model);
      }),
      { numRuns: 400 },
    );
  });
});
