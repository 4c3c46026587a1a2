import { ABSENT, IdIntTable } from '@sluice/collections';
import type { BlockId } from '@sluice/contracts';
import type { KvResidency } from './kv-residency.js';

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

/**
 * A block's fields, side by side in one `Float64Array` (`FIELDS` numbers a block): its indexed
 * hash, its reference count and its free-list links. Allocating or freeing a block then touches
 * one cache line for it instead of one per field: the free list hands out blocks in LRU order,
 * scattered across the cache, and with several engines in one process (the twin) the per-field
 * arrays did not stay in the CPU's cache.
 */
const HASH = 0;
const REFS = 1;
const NEXT = 2;
const PREV = 3;
const FIELDS = 4;
/** Blocks' fields stored at first; the array doubles as blocks are handed out. */
const INITIAL_BLOCKS = 64;

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
 * Blocks never handed out yet are not stored: they are the free list's front in id order (where
 * a cache that listed every block at start would have them), taken one by one from `untouched`
 * on; the fields array grows as they are. An instance that uses a few hundred of its 17,600
 * blocks costs a few hundred blocks' fields, so a twin of 10,000 instances fits in memory.
 *
 * The rest of the free list is an intrusive doubly-linked list over block ids (each block's NEXT/PREV,
 * NONE at the ends): the head is the LRU block, freeing appends to the tail and a hit on a free
 * block unlinks it from the middle, all O(1). A block is free iff its reference count is 0.
 * (A Set in insertion order did the same, but taking its first value walks past every deleted
 * entry the table has not compacted yet: allocation from the head was the engine's hottest line.)
 */
export class KvCache {
  /** Block id's fields at id·FIELDS + HASH / REFS / NEXT / PREV, for ids below `untouched`. */
  private blocks: Float64Array;
  /** Ids from here to `totalBlocks` were never handed out: free, no hash, ahead of the listed free blocks. */
  private untouched = 0;
  /**
   * Hash → block id (an `IdIntTable`: every request inserts and evicts dozens of hashes). It
   * starts small (as many entries as INITIAL_BLOCKS) and grows with the cache's contents: a
   * worker hosts many instances, and an idle one should cost no more than its few blocks (at the
   * table's default 1,024 entries, 2,000 instances spent a tenth of a run creating them).
   */
  private readonly index = new IdIntTable(INITIAL_BLOCKS);
  private head = NONE;
  private tail = NONE;
  private freeCount = 0;
  private events: KvEvents = { stored: [], removed: [] };
  private hits = 0;
  private misses = 0;

  constructor(
    readonly totalBlocks: number,
    /** Sampled block residency (vLLM's KV cache metrics); absent: not measured, at no cost. */
    private readonly residency?: KvResidency,
  ) {
    if (!Number.isInteger(totalBlocks) || totalBlocks < 1) throw new RangeError(`totalBlocks must be a positive integer, got ${totalBlocks}`);
    this.blocks = new Float64Array(Math.min(totalBlocks, INITIAL_BLOCKS) * FIELDS);
    this.freeCount = totalBlocks;
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

  /** Blocks whose fields are stored: those handed out at least once, rounded up to the array's growth. */
  get storedBlocks(): number {
    return this.blocks.length / FIELDS;
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
    for (const id of claiming) if (this.isFree(id)) freeHits++;
    return count <= this.freeCount - freeHits;
  }

  /** Takes a reference on cached blocks (prefix-cache hits); a free one leaves the free list. */
  claim(ids: readonly number[]): void {
    for (const id of ids) {
      this.unlinkFree(id);
      this.blocks[id * FIELDS + REFS] = this.ref(id) + 1;
      this.hits++;
      this.residency?.accessed(id);
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
      const id = this.takeLeastRecent();
      this.evictHash(id);
      this.blocks[id * FIELDS + REFS] = 1;
      ids.push(id);
      this.misses++;
      this.residency?.allocated(id);
    }
    return ids;
  }

  /**
   * Indexes a block that a prefill chunk filled. Returns false if the hash is already cached in
   * another block (two requests computed the same prefix at once): the first stays the cached
   * copy and this one stays unindexed, to be freed as a plain block.
   */
  register(id: number, hash: BlockId): boolean {
    if (this.blocks[id * FIELDS + HASH] !== NO_HASH) return false;
    if (this.index.get(hash) !== ABSENT) return false;
    this.index.set(hash, id);
    this.blocks[id * FIELDS + HASH] = hash;
    this.events.stored.push(hash);
    return true;
  }

  /**
   * Lands KV blocks another instance computed (disaggregated prefill's transfer): each hash not
   * cached here takes a block from the LRU head, is indexed (a `stored` event, as vLLM's consumer
   * reports pulled blocks) and goes back to the free list at once, first block most recently
   * freed, so the request that follows finds them as a cached prefix and the prompt's head is the
   * last to be reused. Landing is not a lookup, so hits and misses are not counted; the request's
   * own claim counts its hits. Stops when no block is free. Returns how many blocks landed.
   */
  importBlocks(hashes: readonly BlockId[]): number {
    const landed: number[] = [];
    for (const hash of hashes) {
      if (this.index.get(hash) !== ABSENT) continue;
      if (this.freeCount === 0) break;
      const id = this.takeLeastRecent();
      this.evictHash(id);
      // Held while landing, so a later hash of this transfer cannot take it back.
      this.blocks[id * FIELDS + REFS] = 1;
      this.residency?.allocated(id);
      this.register(id, hash);
      landed.push(id);
    }
    for (let i = landed.length - 1; i >= 0; i--) {
      this.blocks[landed[i]! * FIELDS + REFS] = 0;
      this.pushFree(landed[i]!);
    }
    return landed.length;
  }

  /**
   * Un-indexes a block whose computation was called off (its request was preempted in the step
   * that would have computed it). A hash stored and forgotten before a drain is never reported.
   */
  forget(id: number): void {
    const hash = this.unindex(id);
    if (hash === NO_HASH) return;
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
      this.blocks[id * FIELDS + REFS] = count - 1;
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
      const hash = this.hashOf(id);
      if (hash !== NO_HASH && this.index.get(hash) !== id) throw new KvInvariantError(`block ${id} keeps hash ${hash} that the index does not map to it`);
    }
    this.index.forEach((hash, id) => {
      if (this.hashOf(id) !== hash) throw new KvInvariantError(`index maps ${hash} to block ${id}, which holds ${this.hashOf(id)}`);
    });
    let listed = this.totalBlocks - this.untouched;
    for (let id = this.head; id !== NONE && listed <= this.totalBlocks; id = this.blocks[id * FIELDS + NEXT]!) {
      if (!this.isFree(id)) throw new KvInvariantError(`block ${id} is on the free list with refcount ${this.ref(id)}`);
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
    return id < this.untouched ? this.blocks[id * FIELDS + REFS]! : 0;
  }

  private hashOf(id: number): number {
    return id < this.untouched ? this.blocks[id * FIELDS + HASH]! : NO_HASH;
  }

  /** Free means on the free list (or never handed out): no request holds it. */
  private isFree(id: number): boolean {
    return id >= this.untouched || this.blocks[id * FIELDS + REFS] === 0;
  }

  /**
   * The free list's head, taken off it (its reference count still 0): the next block never
   * handed out while there is one, else the least recently freed.
   */
  private takeLeastRecent(): number {
    if (this.untouched < this.totalBlocks) {
      const id = this.untouched++;
      if (id * FIELDS >= this.blocks.length) {
        const grown = new Float64Array(Math.min(this.totalBlocks, 2 * id) * FIELDS);
        grown.set(this.blocks);
        this.blocks = grown;
      }
      this.blocks[id * FIELDS + HASH] = NO_HASH;
      this.blocks[id * FIELDS + REFS] = 0;
      this.freeCount--;
      return id;
    }
    const id = this.head;
    this.unlinkFree(id);
    return id;
  }

  /** Appends a block (whose reference count just reached 0) to the free list's tail (most recently freed). */
  private pushFree(id: number): void {
    const { blocks } = this;
    blocks[id * FIELDS + PREV] = this.tail;
    blocks[id * FIELDS + NEXT] = NONE;
    if (this.tail === NONE) this.head = id;
    else blocks[this.tail * FIELDS + NEXT] = id;
    this.tail = id;
    this.freeCount++;
  }

  /** Takes a block off the free list wherever it is (before its reference count leaves 0); a block not on it is left alone. */
  private unlinkFree(id: number): void {
    if (!this.isFree(id)) return;
    const { blocks } = this;
    const prev = blocks[id * FIELDS + PREV]!;
    const next = blocks[id * FIELDS + NEXT]!;
    if (prev === NONE) this.head = next;
    else blocks[prev * FIELDS + NEXT] = next;
    if (next === NONE) this.tail = prev;
    else blocks[next * FIELDS + PREV] = prev;
    this.freeCount--;
  }

  private evictHash(id: number): void {
    const hash = this.unindex(id);
    if (hash !== NO_HASH) this.events.removed.push(hash);
  }

  /** Takes the block's hash out of the index; returns it, or NO_HASH if it had none. */
  private unindex(id: number): number {
    const hash = this.hashOf(id);
    if (hash === NO_HASH) return NO_HASH;
    this.index.delete(hash);
    this.blocks[id * FIELDS + HASH] = NO_HASH;
    return hash;
  }
}
