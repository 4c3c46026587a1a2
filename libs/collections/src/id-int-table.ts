/** What `get` returns for an absent key: values are non-negative (slot and block numbers). */
export const ABSENT = -1;

/** An empty entry's key (keys are non-negative). */
const EMPTY = -1;

/**
 * A hash table from block ids (non-negative safe integers) to non-negative int32s, for the
 * block indexes: the engine's KV index and the router's prefix index hold tens of thousands of
 * keys, and every request inserts and deletes dozens of them.
 *
 * Why not a `Map`: under that churn a `Map` spends its time on deleted entries and the rehashes
 * that clear them. Why numbers, not the hex strings the hashes once were: a key and its value
 * sit side by side in one `Float64Array`, so a probe reads one cache line, and nothing the table
 * holds is a heap object: no string to chase to compare a key, no pointer for the garbage
 * collector to trace or promote. With four engines and a router index in one process (the twin)
 * the tables outgrow the CPU's cache and every probe that misses it counts.
 *
 * Open addressing with linear probing, at most three quarters full, and backward-shift deletion
 * (no tombstones); it allocates only when it grows. Three quarters, not half: a probe still reads
 * one or two cache lines, and a KV index of 17,600 blocks takes 512 KB rather than 1 MB, which
 * matters more once four of them and the router's index share the CPU's cache (in one process,
 * 20,000 twin requests ran in 0.971 of the time they took with the table at most half full).
 */
export class IdIntTable {
  /** Key of entry i at 2i, its value at 2i + 1; EMPTY keys mark free entries. */
  private entries: Float64Array;
  private mask: number;
  private count = 0;

  constructor(initialCapacity = 1024) {
    let capacity = 4;
    while (capacity * 3 < initialCapacity * 4) capacity *= 2;
    this.entries = new Float64Array(capacity * 2).fill(EMPTY);
    this.mask = capacity - 1;
  }

  get size(): number {
    return this.count;
  }

  /** The key's value, or ABSENT. */
  get(key: number): number {
    const { entries, mask } = this;
    for (let i = homeOf(key) & mask; ; i = (i + 1) & mask) {
      const k = entries[2 * i]!;
      if (k === key) return entries[2 * i + 1]!;
      if (k === EMPTY) return ABSENT;
    }
  }

  has(key: number): boolean {
    return this.get(key) !== ABSENT;
  }

  set(key: number, value: number): void {
    if (!(key >= 0 && Number.isSafeInteger(key))) throw new RangeError(`key must be a non-negative safe integer, got ${key}`);
    if (!(value >= 0 && value <= 0x7fffffff && Number.isInteger(value))) throw new RangeError(`value must be a non-negative int32, got ${value}`);
    const { entries, mask } = this;
    let i = homeOf(key) & mask;
    for (; ; i = (i + 1) & mask) {
      const k = entries[2 * i]!;
      if (k === key) {
        entries[2 * i + 1] = value;
        return;
      }
      if (k === EMPTY) break;
    }
    entries[2 * i] = key;
    entries[2 * i + 1] = value;
    if (++this.count * 4 > (mask + 1) * 3) this.grow();
  }

  /** Removes the key; returns whether it was there. */
  delete(key: number): boolean {
    const { entries, mask } = this;
    let i = homeOf(key) & mask;
    for (; ; i = (i + 1) & mask) {
      const k = entries[2 * i]!;
      if (k === key) break;
      if (k === EMPTY) return false;
    }
    // Backward shift: pull later entries of the probe run into the hole unless that would move
    // one before its home slot, so lookups never need a tombstone.
    for (let j = (i + 1) & mask; entries[2 * j] !== EMPTY; j = (j + 1) & mask) {
      const home = homeOf(entries[2 * j]!) & mask;
      const stays = i <= j ? i < home && home <= j : i < home || home <= j;
      if (stays) continue;
      entries[2 * i] = entries[2 * j]!;
      entries[2 * i + 1] = entries[2 * j + 1]!;
      i = j;
    }
    entries[2 * i] = EMPTY;
    this.count--;
    return true;
  }

  /** Every entry, in table order (not insertion order). */
  forEach(visit: (key: number, value: number) => void): void {
    const { entries } = this;
    for (let i = 0; i < entries.length; i += 2) if (entries[i] !== EMPTY) visit(entries[i]!, entries[i + 1]!);
  }

  private grow(): void {
    const old = this.entries;
    const capacity = (this.mask + 1) * 2;
    this.entries = new Float64Array(capacity * 2).fill(EMPTY);
    this.mask = capacity - 1;
    for (let i = 0; i < old.length; i += 2) {
      const k = old[i]!;
      if (k === EMPTY) continue;
      let j = homeOf(k) & this.mask;
      while (this.entries[2 * j] !== EMPTY) j = (j + 1) & this.mask;
      this.entries[2 * j] = k;
      this.entries[2 * j + 1] = old[i + 1]!;
    }
  }
}

/**
 * A key's hash (exported for tests that need keys with chosen home slots): its low and high 32
 * bits mixed with MurmurHash3's finalizer, so that sequential ids (tests) spread as well as
 * random ones (real hashes).
 */
export function homeOf(key: number): number {
  let h = (key >>> 0) ^ Math.imul((key / 4_294_967_296) >>> 0, 0x9e3779b1);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
