import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LruSet } from './lru-set.js';

/** The obvious LRU: a Set in insertion order, refreshed by delete + add. */
class ReferenceLru {
  readonly set = new Set<string>();
  touch(key: string): boolean {
    const added = !this.set.delete(key);
    this.set.add(key);
    return added;
  }
  evictOldest(): string {
    const oldest = this.set.values().next().value as string;
    this.set.delete(oldest);
    return oldest;
  }
}

describe('LruSet', () => {
  it('evicts in least-recently-used order, a refresh moving an entry to the back', () => {
    const lru = new LruSet();
    for (const key of ['a', 'b', 'c']) lru.touch(key);
    expect(lru.touch('a')).toBe(false);
    expect(lru.delete('b')).toBe(true);
    lru.touch('d');
    expect([lru.evictOldest(), lru.evictOldest(), lru.evictOldest()]).toEqual(['c', 'a', 'd']);
    expect(lru.size).toBe(0);
  });

  it('agrees with a Set-based LRU over random touches, deletes and evictions (compactions included)', () => {
    const op = fc.oneof(
      { weight: 6, arbitrary: fc.record({ kind: fc.constant('touch' as const), key: fc.integer({ min: 0, max: 40 }) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 40 }) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('evict' as const), key: fc.constant(0) }) },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 3_000 }), (ops) => {
        const lru = new LruSet();
        const ref = new ReferenceLru();
        for (const { kind, key } of ops) {
          const k = `k${key}`;
          if (kind === 'touch') expect(lru.touch(k)).toBe(ref.touch(k));
          else if (kind === 'delete') expect(lru.delete(k)).toBe(ref.set.delete(k));
          else if (ref.set.size > 0) expect(lru.evictOldest()).toBe(ref.evictOldest());
          expect(lru.size).toBe(ref.set.size);
        }
        expect(new Set(lru.keys())).toEqual(ref.set);
      }),
      { numRuns: 200 },
    );
  });
});
