import { describe, expect, it } from 'vitest';
import { seedOf, seededRandom } from './random.js';

describe('seededRandom (mulberry32)', () => {
  it('yields the same sequence as the worker’s copy it was taken from', () => {
    // Reference values from apps/worker/src/seeded-random.ts, so switching the worker over is safe.
    const r = seededRandom(1);
    expect([r(), r(), r()]).toEqual([0.6270739405881613, 0.002735721180215478, 0.5274470399599522]);
    const s = seededRandom(0xdeadbeef);
    expect([s(), s()]).toEqual([0.9413696140982211, 0.26719574979506433]);
  });

  it('fills in bulk the values as many single draws give, and goes on from where they stop', () => {
    const single = seededRandom(99);
    const bulk = seededRandom(99);
    const one = single();
    expect(bulk()).toBe(one);
    const filled = new Uint32Array(1_003).fill(7);
    bulk.fillBelow(filled, 3, 128_000);
    expect([...filled.subarray(0, 3)]).toEqual([7, 7, 7]);
    expect([...filled.subarray(3)]).toEqual(Array.from({ length: 1_000 }, () => Math.floor(single() * 128_000)));
    expect(bulk()).toBe(single());
  });

  it('is deterministic per seed, differs across seeds, and stays in [0, 1)', () => {
    const draw = (seed: number) => {
      const r = seededRandom(seed);
      return Array.from({ length: 1_000 }, () => r());
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
    for (const x of [...draw(0), ...draw(-1), ...draw(2 ** 40 + 7)]) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
    }
  });

  it('is roughly uniform', () => {
    const r = seededRandom(7);
    const buckets = new Array<number>(10).fill(0);
    for (let i = 0; i < 100_000; i++) buckets[Math.floor(r() * 10)]!++;
    for (const count of buckets) expect(Math.abs(count - 10_000)).toBeLessThan(500);
  });
});

describe('seedOf', () => {
  it('is FNV-1a: the offset basis for the empty string, stable values otherwise', () => {
    expect(seedOf('')).toBe(0x811c9dc5);
    expect(seedOf('i1')).toBe(2_352_541_871);
    expect(seedOf('router-0')).toBe(856_855_905);
  });

  it('gives an unsigned 32-bit integer, different for different ids', () => {
    const seeds = ['w1/0', 'w1/1', 'w2/0', 'router-0', 'router-1'].map(seedOf);
    for (const seed of seeds) {
      expect(Number.isInteger(seed)).toBe(true);
      expect(seed).toBeGreaterThanOrEqual(0);
      expect(seed).toBeLessThan(2 ** 32);
    }
    expect(new Set(seeds).size).toBe(seeds.length);
  });
});
