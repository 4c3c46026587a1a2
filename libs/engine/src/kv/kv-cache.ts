import { ABSENT, IdIntTable } from '@sluice/collections';
import type { BlockId } from '@sluice/contracts';

/** Hashes that entered or left the prefix index since the last drain (vLLM's KV events). */
export interface KvEvents {
  readonly stored: BlockId[];
  readonly removed: BlockId[];
}

/** No blocks claimed (a shared default: a `[]` default would be a new array per call). */
const NO_BLOCKS: readonly number[] = Object.freeze([]);

/** No block: the end of the free list. */
const NONE = -1;

/** A block that holds no indexed hash (block ids are non-negative). */
const NO_HASH = -1;

export class KvInvariantError extends Error {
  override readonly name = 'KvInvariantError';
}

/**
 * A paged KV cache with automatic prefix caching, after vLLM's block pool (as BLIS models it).
 *
 * - Blocks are reference-counted: a cached prompt block can be shared by several requests.
 * - A full prompt block is indexed by its chained hash, so "which blocks are cached" is a map
 *   lookup and the longest run of leading hits is a prefix match.
 * - Free blocks sit on an LRU list: a freed block goes to the tail, allocation takes the head
 *   (the least recently freed). A freed block keeps its hash and stays a cache hit until it is
 *   reused (lazy eviction); only then does its hash leave the index, reported as removed.
 *
 * The free list is an intrusive doubly-linked list over block ids (typed arrays `next`/`prev`,
 * NONE at the ends): the head is the LRU block, freeing appends to the tail and a hit on a free
 * block unlinks it from the middle, all O(1). (A Set in insertion order did the same, but taking
 * its first value walks past every deleted entry the table has not compacted yet: allocation
 * from the head was the engine's hottest line.)
 */
export class KvCache {
  private readonly refCount: Int32Array;
  /** Each block's indexed hash, or NO_HASH. */
  private readonly hashOf: Float64Array;
  /**
   * Hash → block id (an `IdIntTable`: every request inserts and evicts dozens of hashes). It
   * starts small and grows with the cache's contents: a worker hosts many instances.
   */
  private readonly index = new IdIntTable();
  /** Free-list links; a block is free iff `isFree[id]`. */
  private readonly next: Int32Array;
  private readonly prev: Int32Array;
  private readonly isFree: Uint8Array;
  private head = NONE;
  private tail = NONE;
  private freeCount = 0;
  private events: KvEvents = { stored: [], removed: [] };
  private hits = 0;
  private misses = 0;

  constructor(readonly totalBlocks: number) {
    if (!Number.isInteger(totalBlocks) || totalBlocks < 1) throw new RangeError(`totalBlocks must be a positive integer, got ${totalBlocks}`);
    this.refCount = new Int32Array(totalBlocks);
    this.hashOf = new Float64Array(totalBlocks).fill(NO_HASH);
    this.next = new Int32Array(totalBlocks);
    this.prev = new Int32Array(totalBlocks);
    this.isFree = new Uint8Array(totalBlocks);
    for (let id = 0; id < totalBlocks; id++) this.pushFree(id);
  }

  get freeBlocks(): number {
    return this.freeCount;
  }

  get allocatedBlocks(): number {
    return this.totalBlocks - this.freeCount;
  }

  /** Cumulative blocks reused from the cache and blocks newly allocated (decode blocks included). */
  get hitBlocks(): number {
    return this.hits;
  }

  get missBlocks(): number {
    return this.misses;
  }

  /** Block ids of the longest run of leading `hashes` that are cached, at most `maxBlocks` of them. */
  lookupPrefix(hashes: readonly BlockId[], maxBlocks: number = hashes.length): number[] {
    const found: number[] = [];
    for (const hash of hashes) {
      if (found.length >= maxBlocks) break;
      const id = this.index.get(hash);
      if (id === ABSENT) break;
      found.push(id);
    }
    return found;
  }

  /** Whether `count` new blocks can be had once the cached blocks `claiming` are taken first. */
  canAllocate(count: number, claiming: readonly number[] = NO_BLOCKS): boolean {
    let freeHits = 0;
    for (const id of claiming) if (this.isFree[id] === 1) freeHits++;
    return count <= this.freeCount - freeHits;
  }

  /** Takes a reference on cached blocks (prefix-cache hits); a free one leaves the free list. */
  claim(ids: readonly number[]): void {
    for (const id of ids) {
      this.unlinkFree(id);
      this.refCount[id] = this.ref(id) + 1;
      this.hits++;
    }
  }

  /** Takes `count` blocks from the LRU head. A reused block's old hash leaves the index. */
  allocate(count: number): number[] {
    return this.allocateInto(count, []);
  }

  /** `allocate`, appending the ids to a request's block list rather than to a new array. */
  allocateInto(count: number, ids: number[]): number[] {
    if (count > this.freeCount) throw new RangeError(`cannot allocate ${count} KV blocks: ${this.freeCount} free`);
    for (let i = 0; i < count; i++) {
      const id = this.head;
      this.unlinkFree(id);
      this.evictHash(id);
      this.refCount[id] = 1;
      ids.push(id);
      this.misses++;
    }
    return ids;
  }

  /**
   * Indexes a block that a prefill chunk filled. Returns false if the hash is already cached in
   * another block (two requests computed the same prefix at once): the first stays the cached
   * copy and this one stays unindexed, to be freed as a plain block.
   */
  register(id: number, hash: BlockId): boolean {
    if (this.hashOf[id] !== NO_HASH) return false;
    if (this.index.get(hash) !== ABSENT) return false;
    this.index.set(hash, id);
    this.hashOf[id] = hash;
    this.events.stored.push(hash);
    return true;
  }

  /**
   * Un-indexes a block whose computation was called off (its request was preempted in the step
   * that would have computed it). A hash stored and forgotten before a drain is never reported.
   */
  forget(id: number): void {
    const hash = this.hashOf[id]!;
    if (hash === NO_HASH) return;
    this.index.delete(hash);
    this.hashOf[id] = NO_HASH;
    const stored = this.events.stored.lastIndexOf(hash);
    if (stored === -1) this.events.removed.push(hash);
    else this.events.stored.splice(stored, 1);
  }

  /**
   * Drops one reference on each of a request's blocks, last block first, as vLLM does: the tail
   * of a sequence (the least shareable part) reaches the free list first and so is reused first.
   */
  release(ids: readonly number[]): void {
    for (let i = ids.length - 1; i >= 0; i--) {
      const id = ids[i]!;
      const count = this.ref(id);
      if (count < 1) throw new KvInvariantError(`block ${id} released while free`);
      this.refCount[id] = count - 1;
      if (count === 1) this.pushFree(id);
    }
  }

  /** Returns the index changes since the last call and starts a new batch of events. */
  drainEvents(): KvEvents {
    const events = this.events;
    this.events = { stored: [], removed: [] };
    return events;
  }

  /**
   * Throws if the books do not balance; for tests. Given every holder's block list, also checks
   * that each block's reference count is the number of holders that hold it.
   */
  checkInvariants(holders?: Iterable<readonly number[]>): void {
    if (holders) this.checkReferences(holders);
    let allocated = 0;
    for (let id = 0; id < this.totalBlocks; id++) {
      const count = this.ref(id);
      if (count < 0) throw new KvInvariantError(`block ${id} has refcount ${count}`);
      if (count > 0) allocated++;
      if ((count === 0) !== (this.isFree[id] === 1)) throw new KvInvariantError(`block ${id} has refcount ${count} but free=${this.isFree[id] === 1}`);
      const hash = this.hashOf[id]!;
      if (hash !== NO_HASH && this.index.get(hash) !== id) throw new KvInvariantError(`block ${id} keeps hash ${hash} that the index does not map to it`);
    }
    this.index.forEach((hash, id) => {
      if (this.hashOf[id] !== hash) throw new KvInvariantError(`index maps ${hash} to block ${id}, which holds ${this.hashOf[id]}`);
    });
    let listed = 0;
    for (let id = this.head; id !== NONE && listed <= this.totalBlocks; id = this.next[id]!) {
      if (this.isFree[id] !== 1) throw new KvInvariantError(`block ${id} is on the free list but not free`);
      listed++;
    }
    if (listed !== this.freeCount) throw new KvInvariantError(`free list holds ${listed} blocks, counted ${this.freeCount}`);
    if (allocated + this.freeCount !== this.totalBlocks) throw new KvInvariantError(`allocated ${allocated} + free ${this.freeCount} != total ${this.totalBlocks}`);
  }

  private checkReferences(holders: Iterable<readonly number[]>): void {
    const expected = new Int32Array(this.totalBlocks);
    for (const blocks of holders) for (const id of blocks) expected[id] = (expected[id] ?? 0) + 1;
    for (let id = 0; id < this.totalBlocks; id++) {
      if (expected[id] !== this.ref(id)) throw new KvInvariantError(`block ${id} has refcount ${this.ref(id)} but ${expected[id]} holders`);
    }
  }

  private ref(id: number): number {
    return this.refCount[id] ?? 0;
  }

  /** Appends a block to the free list's tail (most recently freed). */
  private pushFree(id: number): void {
    this.isFree[id] = 1;
    this.prev[id] = this.tail;
    this.next[id] = NONE;
    if (this.tail === NONE) this.head = id;
    else this.next[this.tail] = id;
    this.tail = id;
    this.freeCount++;
  }

  /** Takes a block off the free list wherever it is; a block not on it is left alone. */
  private unlinkFree(id: number): void {
    if (this.isFree[id] !== 1) return;
    this.isFree[id] = 0;
    const prev = this.prev[id]!;
    const next = this.next[id]!;
    if (prev === NONE) this.head = next;
    else this.next[prev] = next;
    if (next === NONE) this.tail = prev;
    else this.prev[next] = prev;
    this.freeCount--;
  }

  private evictHash(id: number): void {
    const hash = this.hashOf[id]!;
    if (hash === NO_HASH) return;
    this.index.delete(hash);
    this.hashOf[id] = NO_HASH;
    this.events.removed.push(hash);
  }
}
