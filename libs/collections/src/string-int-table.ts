/** What `get` returns for an absent key: values are non-negative (slot and block numbers). */
export const ABSENT = -1;

/**
 * A hash table from strings to non-negative int32s, for the block-hash indexes (the engine's
 * KV index, the router's prefix index): tens of thousands of keys, and every request inserts and
 * deletes dozens of them. A `Map` under that churn spends its time on deleted entries and the
 * rehashes that clear them; this table uses open addressing with linear probing and backward-shift
 * deletion (no tombstones), keeps each key's hash beside it, and allocates only when it grows.
 *
 * The hash reads at most 32 characters (the first and last 16 of a longer key): a block hash is
 * random throughout (a 64-hex SHA-256, or the twin's 4-character ids), and a long key costs no
 * more than a short one.
 */
export class StringIntTable {
  private keys: (string | undefined)[];
  private hashes: Int32Array;
  private values: Int32Array;
  private mask: number;
  private count = 0;

  constructor(initialCapacity = 1024) {
    let capacity = 4;
    while (capacity < initialCapacity * 2) capacity *= 2;
    this.keys = new Array<string | undefined>(capacity).fill(undefined);
    this.hashes = new Int32Array(capacity);
    this.values = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  get size(): number {
    return this.count;
  }

  /**
   * The key's value, or ABSENT. Every operation takes the key's `hashOf` if the caller has it:
   * an index that keeps each key's hash beside it then never reads the key's characters again (a
   * key stored long ago is a cache miss to read), and compares it by identity.
   */
  get(key: string, hash: number = hashOf(key)): number {
    const { keys, hashes, mask } = this;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const k = keys[i];
      if (k === undefined) return ABSENT;
      if (hashes[i] === hash && k === key) return this.values[i]!;
    }
  }

  has(key: string): boolean {
    return this.get(key) !== ABSENT;
  }

  set(key: string, value: number, hash: number = hashOf(key)): void {
    if (!(value >= 0 && value <= 0x7fffffff && Number.isInteger(value))) throw new RangeError(`value must be a non-negative int32, got ${value}`);
    const { keys, hashes, mask } = this;
    let i = hash & mask;
    for (; ; i = (i + 1) & mask) {
      const k = keys[i];
      if (k === undefined) break;
      if (hashes[i] === hash && k === key) {
        this.values[i] = value;
        return;
      }
    }
    keys[i] = key;
    hashes[i] = hash;
    this.values[i] = value;
    // At most half full: probe runs stay short.
    if (++this.count * 2 > keys.length) this.grow();
  }

  /** Removes the key; returns whether it was there. */
  delete(key: string, hash: number = hashOf(key)): boolean {
    const { keys, hashes, values, mask } = this;
    let i = hash & mask;
    for (; ; i = (i + 1) & mask) {
      const k = keys[i];
      if (k === undefined) return false;
      if (hashes[i] === hash && k === key) break;
    }
    // Backward shift: pull later entries of the probe run into the hole unless that would move
    // one before its home slot, so lookups never need a tombstone.
    for (let j = (i + 1) & mask; keys[j] !== undefined; j = (j + 1) & mask) {
      const home = hashes[j]! & mask;
      const stays = i <= j ? i < home && home <= j : i < home || home <= j;
      if (stays) continue;
      keys[i] = keys[j];
      hashes[i] = hashes[j]!;
      values[i] = values[j]!;
      i = j;
    }
    keys[i] = undefined;
    this.count--;
    return true;
  }

  /** Every entry, in table order (not insertion order). */
  forEach(visit: (key: string, value: number) => void): void {
    for (let i = 0; i < this.keys.length; i++) {
      const k = this.keys[i];
      if (k !== undefined) visit(k, this.values[i]!);
    }
  }

  private grow(): void {
    const { keys, hashes, values } = this;
    const capacity = keys.length * 2;
    this.keys = new Array<string | undefined>(capacity).fill(undefined);
    this.hashes = new Int32Array(capacity);
    this.values = new Int32Array(capacity);
    this.mask = capacity - 1;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (k === undefined) continue;
      let j = hashes[i]! & this.mask;
      while (this.keys[j] !== undefined) j = (j + 1) & this.mask;
      this.keys[j] = k;
      this.hashes[j] = hashes[i]!;
      this.values[j] = values[i]!;
    }
  }
}

/** The table's hash of a key (exported for tests that need keys with chosen home slots). FNV-1a over up to 32 characters, then a murmur finalizer so low bits mix well (the table masks them). */
export function hashOf(key: string): number {
  const n = key.length;
  let h = 0x811c9dc5 ^ n;
  if (n <= 32) {
    for (let i = 0; i < n; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  } else {
    for (let i = 0; i < 16; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
    for (let i = n - 16; i < n; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
