import { describe, expect, it } from 'vitest';
import { KvCache } from './kv-cache.js';

/** Block hashes (block ids): the H ones get cached, the X ones never are. */
const [H0, H1, H2, H3] = [1_001, 1_002, 1_003, 1_004];
const [X0, X1] = [9_001, 9_002];

describe('KvCache', () => {
  it('allocates from the LRU head and keeps allocated + free = total', () => {
    const kv = new KvCache(4);
    expect(kv.allocate(3)).toEqual([0, 1, 2]);
    expect(kv).toMatchObject({ freeBlocks: 1, allocatedBlocks: 3 });
    expect(kv.canAllocate(1)).toBe(true);
    expect(kv.canAllocate(2)).toBe(false);
    expect(() => kv.allocate(2)).toThrow(RangeError);
    kv.checkInvariants([[0, 1, 2]]);
  });

  it('releases a request last block first, so its tail is reused first', () => {
    const kv = new KvCache(4);
    const blocks = kv.allocate(3); // [0,1,2]; free list: [3]
    kv.release(blocks); // free list: [3, 2, 1, 0]
    expect(kv.allocate(4)).toEqual([3, 2, 1, 0]);
  });

  it('finds the longest run of leading cached hashes', () => {
    const kv = new KvCache(8);
    const [b0, b1, b2] = kv.allocate(3) as [number, number, number];
    kv.register(b0, H0);
    kv.register(b1, H1);
    kv.register(b2, H2);
    expect(kv.lookupPrefix([H0, H1, H2, H3])).toEqual([b0, b1, b2]);
    expect(kv.lookupPrefix([H0, X1, H2])).toEqual([b0]);
    expect(kv.lookupPrefix([X0, H1])).toEqual([]);
    expect(kv.lookupPrefix([H0, H1, H2], 2)).toEqual([b0, b1]);
    expect(kv.drainEvents()).toEqual({ stored: [H0, H1, H2], removed: [] });
  });

  it('keeps a freed block cached until it is reused (lazy eviction), then reports its hash removed', () => {
    const kv = new KvCache(2);
    const [a] = kv.allocate(1) as [number];
    kv.register(a, H0);
    kv.release([a]); // free list: [1, a]
    kv.drainEvents();
    expect(kv.lookupPrefix([H0])).toEqual([a]);
    kv.allocate(1); // takes block 1: h0 survives
    expect(kv.lookupPrefix([H0])).toEqual([a]);
    expect(kv.allocate(1)).toEqual([a]); // reuses a: h0 leaves the index
    expect(kv.lookupPrefix([H0])).toEqual([]);
    expect(kv.drainEvents()).toEqual({ stored: [], removed: [H0] });
    kv.checkInvariants();
  });

  it('shares a cached block by reference count; a hit on a free block takes it off the free list', () => {
    const kv = new KvCache(3);
    const [a] = kv.allocate(1) as [number];
    kv.register(a, H0);
    kv.claim([a]); // a second request shares it
    kv.checkInvariants([[a], [a]]);
    kv.release([a]);
    expect(kv.freeBlocks).toBe(2);
    kv.release([a]);
    expect(kv.freeBlocks).toBe(3);
    // Cached and free: claiming it uses up one free block, which canAllocate accounts for.
    expect(kv.canAllocate(2, [a])).toBe(true);
    expect(kv.canAllocate(3, [a])).toBe(false);
    kv.claim([a]);
    expect(kv.freeBlocks).toBe(2);
    expect(kv).toMatchObject({ hitBlocks: 2, missBlocks: 1 });
    kv.checkInvariants([[a]]);
  });

  it('keeps the first copy when two blocks hold the same prefix', () => {
    const kv = new KvCache(2);
    const [a, b] = kv.allocate(2) as [number, number];
    expect(kv.register(a, H0)).toBe(true);
    expect(kv.register(b, H0)).toBe(false);
    kv.release([b]);
    expect(kv.lookupPrefix([H0])).toEqual([a]);
    kv.checkInvariants([[a]]);
  });

  it('forgets a block stored since the last drain without reporting it', () => {
    const kv = new KvCache(2);
    const [a, b] = kv.allocate(2) as [number, number];
    kv.register(a, H0);
    kv.drainEvents();
    kv.register(b, H1);
    kv.forget(b);
    kv.forget(a);
    expect(kv.drainEvents()).toEqual({ stored: [], removed: [H0] });
    expect(kv.lookupPrefix([H0])).toEqual([]);
    kv.checkInvariants();
  });

  it('rejects releasing a free block and detects unbalanced references', () => {
    const kv = new KvCache(2);
    expect(() => kv.release([0])).toThrow(/released while free/);
    const blocks = kv.allocate(1);
    expect(() => kv.checkInvariants([])).toThrow(/refcount 1 but 0 holders/);
    kv.checkInvariants([blocks]);
  });

  it('hands out never-used blocks first, in id order, then the least recently freed; stores only the blocks it has handed out', () => {
    const kv = new KvCache(17_600);
    const first = kv.allocate(3);
    expect(first).toEqual([0, 1, 2]);
    kv.release(first); // freed last block first: 2, 1, 0 join the list's tail
    // Never-used blocks still come before any freed one, as if every block had been listed at start.
    expect(kv.allocate(2)).toEqual([3, 4]);
    kv.checkInvariants([[3, 4]]);
    expect(kv.freeBlocks).toBe(17_598);
    // 5 blocks handed out: the fields of 64, not of 17,600.
    expect(kv.storedBlocks).toBe(64);
    const small = new KvCache(6);
    const all = small.allocate(6);
    expect(all).toEqual([0, 1, 2, 3, 4, 5]);
    small.release(all);
    // Every block used once: the freed ones come back least recently freed first (last block released first).
    expect(small.allocate(6)).toEqual([5, 4, 3, 2, 1, 0]);
    small.checkInvariants([[5, 4, 3, 2, 1, 0]]);
  });

  it('grows its stored blocks as they are handed out, keeping every field', () => {
    const kv = new KvCache(1_000);
    const held = kv.allocate(200);
    held.forEach((id, i) => kv.register(id, 10_000 + i));
    expect(kv.storedBlocks).toBeGreaterThanOrEqual(200);
    expect(kv.storedBlocks).toBeLessThanOrEqual(256);
    expect(kv.lookupPrefix([10_000, 10_001, 10_002])).toEqual([0, 1, 2]);
    kv.checkInvariants([held]);
  });
});
