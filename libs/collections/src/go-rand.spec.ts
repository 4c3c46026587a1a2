import { describe, expect, it } from 'vitest';
import { fnv1a64 } from './fnv1a64.js';
import { GoRand } from './go-rand.js';

/**
 * Expected values printed by Go 1.19.8's math/rand (a throwaway program outside the repo):
 * `r := rand.New(rand.NewSource(seed))`, then 20 × `r.Intn(n)` on a fresh r per n, and 3 × `r.Int63()`;
 * fnv.New64a over "router" gives 11591039486880609604, and 42 XOR it as int64 is -6855704586828941970.
 */
const GO: Record<string, { readonly intn: Record<number, readonly number[]>; readonly int63: readonly bigint[] }> = {
  '0': {
    intn: {
      2: [0, 0, 1, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0],
      3: [0, 0, 1, 1, 2, 1, 1, 2, 0, 0, 0, 2, 2, 0, 0, 0, 2, 2, 1, 0],
      5: [4, 4, 3, 1, 0, 1, 2, 2, 3, 3, 3, 2, 4, 3, 2, 1, 1, 0, 0, 4],
      16: [10, 2, 9, 10, 11, 0, 15, 5, 8, 0, 8, 11, 11, 12, 8, 14, 15, 2, 2, 14],
      100: [74, 14, 53, 6, 15, 96, 67, 77, 88, 28, 68, 47, 59, 48, 52, 26, 11, 50, 50, 94],
    },
    int63: [8717895732742165505n, 2259404117704393152n, 6050128673802995827n],
  },
  '1': {
    intn: {
      2: [1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0],
      3: [2, 0, 2, 2, 1, 0, 1, 2, 1, 0, 2, 1, 0, 2, 1, 2, 0, 2, 2, 2],
      5: [1, 2, 2, 4, 1, 3, 0, 0, 1, 0, 4, 1, 2, 4, 3, 4, 1, 0, 2, 1],
      16: [1, 15, 7, 11, 1, 6, 9, 12, 8, 4, 6, 15, 2, 1, 8, 10, 11, 5, 5, 2],
      100: [81, 87, 47, 59, 81, 18, 25, 40, 56, 0, 94, 11, 62, 89, 28, 74, 11, 45, 37, 6],
    },
    int63: [5577006791947779410n, 8674665223082153551n, 6129484611666145821n],
  },
  '42': {
    intn: {
      2: [1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0],
      3: [2, 2, 2, 0, 1, 1, 0, 2, 2, 1, 1, 2, 0, 1, 2, 0, 2, 2, 2, 2],
      5: [0, 2, 3, 0, 3, 0, 2, 1, 3, 3, 4, 2, 0, 3, 2, 3, 2, 1, 0, 4],
      16: [1, 11, 4, 14, 15, 1, 5, 8, 0, 3, 9, 15, 7, 12, 12, 13, 4, 9, 15, 0],
      100: [5, 87, 68, 50, 23, 45, 57, 76, 28, 43, 29, 67, 15, 28, 52, 53, 52, 1, 35, 4],
    },
    int63: [3440579354231278675n, 608747136543856411n, 5571782338101878760n],
  },
  '-7': {
    intn: {
      2: [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1],
      3: [1, 2, 1, 0, 1, 1, 2, 0, 1, 0, 2, 0, 0, 0, 2, 2, 1, 0, 0, 1],
      5: [4, 3, 0, 1, 3, 0, 1, 0, 2, 1, 0, 4, 0, 2, 1, 4, 1, 4, 1, 3],
      16: [1, 0, 2, 0, 11, 10, 0, 10, 7, 4, 3, 15, 5, 12, 8, 8, 0, 1, 1, 1],
      100: [9, 28, 90, 56, 63, 30, 16, 30, 27, 76, 75, 99, 85, 52, 76, 24, 56, 89, 21, 93],
    },
    int63: [747107023976529931n, 7084732931963018726n, 6995717851144434728n],
  },
  '-6855704586828941970': {
    intn: {
      2: [0, 0, 1, 0, 1, 1, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0],
      3: [0, 1, 2, 0, 2, 2, 0, 2, 2, 0, 1, 1, 1, 1, 2, 0, 0, 1, 2, 1],
      5: [4, 4, 0, 0, 2, 1, 4, 4, 1, 3, 3, 0, 1, 4, 3, 3, 3, 3, 4, 0],
      16: [14, 8, 15, 14, 11, 11, 4, 3, 15, 14, 5, 0, 8, 12, 12, 4, 15, 5, 2, 0],
      100: [14, 64, 35, 70, 27, 91, 64, 39, 91, 58, 93, 60, 36, 64, 28, 68, 3, 53, 74, 40],
    },
    int63: [2209865534360810960n, 8005449091104485856n, 4229094246506554210n],
  },
};

describe('GoRand: Go math/rand (v1) value stream', () => {
  describe.each(Object.entries(GO))('seed %s', (seed, expected) => {
    it.each(Object.entries(expected.intn))('Intn(%s) × 20 matches Go', (n, values) => {
      const rng = new GoRand(BigInt(seed));
      expect(Array.from({ length: 20 }, () => rng.intn(Number(n)))).toEqual(values);
    });

    it('Int63 × 3 matches Go', () => {
      const rng = new GoRand(BigInt(seed));
      expect([rng.int63(), rng.int63(), rng.int63()]).toEqual(expected.int63);
    });
  });

  it('takes a number seed as the same int64', () => {
    const a = new GoRand(42);
    const b = new GoRand(42n);
    expect(Array.from({ length: 5 }, () => a.intn(7))).toEqual(Array.from({ length: 5 }, () => b.intn(7)));
  });

  it('rejects an n Go would panic on', () => {
    expect(() => new GoRand(1).intn(0)).toThrow(RangeError);
  });
});

describe('fnv1a64', () => {
  it('matches Go hash/fnv New64a, and seeds BLIS’s router as Go does (42 XOR it, as int64)', () => {
    expect(fnv1a64('router')).toBe(11591039486880609604n);
    expect(BigInt.asIntN(64, 42n ^ fnv1a64('router'))).toBe(-6855704586828941970n);
  });
});
