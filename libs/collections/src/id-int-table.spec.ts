import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ABSENT, IdIntTable, homeOf } from './id-int-table.js';

describe('IdIntTable', () => {
  it('gets, overwrites and deletes', () => {
    const table = new IdIntTable(4);
    table.set(10, 1);
    table.set(20, 2);
    table.set(10, 3);
    expect([table.get(10), table.get(20), table.get(30), table.size]).toEqual([3, 2, ABSENT, 2]);
    expect(table.delete(10)).toBe(true);
    expect(table.delete(10)).toBe(false);
    expect([table.has(10), table.get(20), table.size]).toEqual([false, 2, 1]);
  });

  it('keeps every key reachable when a deletion shifts a probe run that wraps past the end of the table', () => {
    // Capacity 8 (room for 4 keys): keys whose home slots are 6, 7 and 0, so the run 6, 7, 0 wraps.
    const withHome = (home: number, from: number) => Array.from({ length: 10_000 }, (_, i) => from + i).find((k) => (homeOf(k) & 7) === home)!;
    const [a, b, c] = [withHome(6, 0), withHome(7, 0), withHome(0, 0)];
    const table = new IdIntTable(4);
    table.set(a, 1);
    table.set(b, 2);
    table.set(c, 3);
    table.delete(a); // b and c are at their homes: neither may move into a's slot
    expect([table.get(a), table.get(b), table.get(c)]).toEqual([ABSENT, 2, 3]);
    const d = withHome(7, 100_000);
    table.set(d, 4); // home 7, taken by b: lands on 1, past the wrap
    table.delete(b); // d must move back into 7, c must stay at 0
    expect([table.get(b), table.get(c), table.get(d)]).toEqual([ABSENT, 3, 4]);
  });

  it('tells keys apart by their high bits too: ids up to 2^53 that share their low 32 bits', () => {
    const table = new IdIntTable();
    const low = 123_456;
    for (let high = 0; high < 64; high++) table.set(high * 2 ** 32 + low, high);
    for (let high = 0; high < 64; high++) expect(table.get(high * 2 ** 32 + low)).toBe(high);
    table.set(Number.MAX_SAFE_INTEGER, 7);
    expect(table.get(Number.MAX_SAFE_INTEGER)).toBe(7);
  });

  it('refuses a key that is not a non-negative safe integer and a value that is not a non-negative int32', () => {
    const table = new IdIntTable();
    for (const bad of [-1, 1.5, 2 ** 53, Number.NaN]) expect(() => table.set(bad, 0)).toThrow(RangeError);
    for (const bad of [-1, 1.5, 2 ** 31, Number.NaN]) expect(() => table.set(1, bad)).toThrow(RangeError);
  });

  it('agrees with a Map through sets, overwrites, deletes and growth (fast-check)', () => {
    // A small key space over a small table: long probe runs that wrap around, and deletions in them.
    const key = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }));
    const op = fc.tuple(fc.constantFrom('set', 'delete', 'get'), key, fc.integer({ min: 0, max: 1000 }));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const table = new IdIntTable(1);
        const model = new Map<number, number>();
        for (const [kind, k, value] of ops) {
          if (kind === 'set') {
            table.set(k, value);
            model.set(k, value);
          } else if (kind === 'delete') expect(table.delete(k)).toBe(model.delete(k));
          expect(table.get(k)).toBe(model.get(k) ?? ABSENT);
          expect(table.size).toBe(model.size);
        }
        for (const [k, v] of model) expect(table.get(k)).toBe(v);
        const seen = new Map<number, number>();
        table.forEach((k, v) => seen.set(k, v));
        expect(seen).toEqual(model);
      }),
      { numRuns: 400 },
    );
  });
});
