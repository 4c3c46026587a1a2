import { ABSENT, IdIntTable } from '@sluice/collections';
import type { BlockId } from '@sluice/contracts';
import type { PrefixLookup } from '../cluster-view.js';
import { UseQueue } from './use-queue.js';

/** Block hashes remembered per instance (docs/behaviour.md §4, after BLIS's router-side cache index). */
export const DEFAULT_PREFIX_INDEX_CAPACITY = 10_000;

/** No holder / no stamp. */
const NONE = -1;

/**
 * A slot's fields, side by side in one `Float64Array` (`SLOT_FIELDS` numbers a slot): its hash,
 * its first holder (an instance's ordinal), that holder's stamp, and whether other instances hold
 * it too (1 or 0: then their stamps are in `otherHoldersAt`). A touch or an eviction reads them
 * together, for slots scattered across the index: one cache line, not one per field; the flag
 * spares a read of the other holders' array, itself scattered, for the slots nobody shares.
 */
const HASH = 0;
const HOLDER = 1;
const STAMP = 2;
const SHARED = 3;
const SLOT_FIELDS = 4;

/** A slot's holders are walked rather than asked one by one when they number at most this many times the instances asked. */
const MARK_WALK_RATIO = 4;
/** Marks restart from a cleared array before the epoch counter leaves the int32 range. */
const MAX_EPOCH = 2 ** 31 - 1;

/** One instance's side of the index: how many hashes it holds, and its uses in LRU order. */
interface InstanceEntries {
  readonly id: string;
  size: number;
  readonly uses: UseQueue;
}

/**
 * The router-side prefix index: what the control plane believes each instance has cached, as a
 * per-instance LRU of prompt block hashes. It is a belief, not the instance's KV cache: it learns
 * from routing decisions (the router records a request's blocks on the instance it chose) and from
 * KV events, and forgets by LRU. The router and admission's `slo-predictive` share this one class.
 *
 * Layout. The router records every block of every prompt it routes and scores every request
 * against every instance, so this is the twin's hottest structure; it is laid out for that:
 * - one map from hash to a slot, shared by all instances: a recorded block costs one lookup
 *   whether it is new, refreshed or held elsewhere, and scoring walks the request's blocks once
 *   for all instances at once (at 1,000 instances a per-instance walk dominated a weighted
 *   routing decision; see docs/benchmarks.md);
 * - per slot, side by side in one typed array: its hash, the first holder (an instance's
 *   ordinal) and the stamp of its last use; the other holders, rare (a prefix shared across
 *   instances), in a small map;
 * - per instance, the uses in order (`UseQueue`): the LRU victim is the oldest use whose stamp is
 *   still the holder's, so a refresh overwrites a stamp instead of moving an entry.
 * Stamps come from one clock and never repeat, so a use recorded before a slot was freed and
 * reused can never pass for a live one.
 */
export class PrefixIndex implements PrefixLookup {
  private readonly slotOf = new IdIntTable();
  /** Slot i's fields at i·SLOT_FIELDS + HASH / HOLDER / STAMP / SHARED. */
  private slots = new Float64Array(1024 * SLOT_FIELDS).fill(NONE);
  private otherHoldersAt: (Map<number, number> | undefined)[] = [];
  private readonly freeSlots: number[] = [];
  private slotsUsed = 0;

  /** `holdersMarked`'s scratch: an instance's ordinal → the epoch of the last walk that found it holding. */
  private marks = new Int32Array(0);
  private epoch = 0;

  private readonly ordinalOf = new Map<string, number>();
  private readonly instances: (InstanceEntries | undefined)[] = [];
  private readonly freeOrdinals: number[] = [];
  private clock = 0;

  /**
   * `recordOrder`: the order `record` refreshes a prompt's blocks in. `leading-last` (default)
   * leaves its leading blocks the most recent (see `record`); `prompt` refreshes them first to last,
   * so its last block is the most recent and its first is evicted first, as BLIS's router-side
   * index does (inference-sim/inference-sim sim/prefix_cache_index.go `RecordBlocks` at
   * b563c4405b7847eaf682c6d603065c1faca3ca03): BLIS parity mode.
   */
  constructor(
    private readonly capacityPerInstance = DEFAULT_PREFIX_INDEX_CAPACITY,
    private readonly recordOrder: 'leading-last' | 'prompt' = 'leading-last',
  ) {
    if (!Number.isInteger(capacityPerInstance) || capacityPerInstance < 1) {
      throw new RangeError(`prefix index capacity must be a positive integer, got ${capacityPerInstance}`);
    }
  }

  /** Adds (or refreshes to most-recently-used) these block hashes for the instance; evicts the LRU ones beyond capacity. */
  record(instanceId: string, blockHashes: readonly BlockId[]): void {
    if (blockHashes.length === 0) return;
    const ordinal = this.ordinalFor(instanceId);
    const entries = this.instances[ordinal]!;
    // Refresh last block first, so a prompt's leading blocks end up the most recent: a lookup
    // counts only a leading run, so losing block 0 would make every later block useless. (vLLM
    // frees a request's blocks in reverse order for the same reason; docs/behaviour.md §1.)
    if (this.recordOrder === 'prompt') for (let i = 0; i < blockHashes.length; i++) this.touch(blockHashes[i]!, ordinal, entries);
    else for (let i = blockHashes.length - 1; i >= 0; i--) this.touch(blockHashes[i]!, ordinal, entries);
    while (entries.size > this.capacityPerInstance) this.evictOldest(ordinal, entries);
    this.compactIfStale(ordinal, entries);
  }

  /** Forgets these hashes for the instance (KV "removed" events). */
  remove(instanceId: string, blockHashes: readonly BlockId[]): void {
    const ordinal = this.ordinalOf.get(instanceId);
    if (ordinal === undefined) return;
    const entries = this.instances[ordinal]!;
    for (const hash of blockHashes) {
      const slot = this.slotOf.get(hash);
      if (slot !== ABSENT && this.stampFor(slot, ordinal) !== NONE) this.unhold(slot, ordinal, entries);
    }
    this.compactIfStale(ordinal, entries);
  }

  /** Forgets an instance entirely (deregistered / lost). */
  dropInstance(instanceId: string): void {
    const ordinal = this.ordinalOf.get(instanceId);
    if (ordinal === undefined) return;
    const entries = this.instances[ordinal]!;
    const { uses } = entries;
    for (let i = uses.head; i < uses.tail; i++) {
      const slot = uses.slotAt(i);
      if (this.stampFor(slot, ordinal) === uses.stampAt(i)) this.unhold(slot, ordinal, entries);
    }
    this.ordinalOf.delete(instanceId);
    this.instances[ordinal] = undefined;
    this.freeOrdinals.push(ordinal);
  }

  /**
   * Number of LEADING blocks of `blockHashes` present for the instance, stopping at the first
   * miss: an engine reuses only the longest run of leading cached blocks, so a hit after a miss
   * saves no prefill (docs/behaviour.md §1, "KV cache"). A read: it does not change LRU order.
   */
  matchedBlocks(instanceId: string, blockHashes: readonly BlockId[]): number {
    const ordinal = this.ordinalOf.get(instanceId);
    if (ordinal === undefined) return 0;
    let matched = 0;
    while (matched < blockHashes.length) {
      const slot = this.slotOf.get(blockHashes[matched]!);
      if (slot === ABSENT || this.stampFor(slot, ordinal) === NONE) break;
      matched++;
    }
    return matched;
  }

  /**
   * `matchedBlocks` for every instance at once: the instances holding at least the first block,
   * each with its leading-run length. Walks the request's blocks once, narrowing the holders.
   */
  matchedBlocksByInstance(blockHashes: readonly BlockId[]): ReadonlyMap<string, number> {
    const matched = new Map<string, number>();
    const first = blockHashes.length > 0 ? this.slotOf.get(blockHashes[0]!) : ABSENT;
    if (first === ABSENT) return matched;
    const alive = this.holdersOf(first);
    let i = 1;
    for (; i < blockHashes.length && alive.length > 0; i++) {
      const slot = this.slotOf.get(blockHashes[i]!);
      if (slot === ABSENT) break;
      const holds = this.holdersMarked(slot, alive.length);
      // Instances that stop here matched i blocks.
      let kept = 0;
      for (const ordinal of alive) {
        if (holds ? this.marks[ordinal] === this.epoch : this.stampFor(slot, ordinal) !== NONE) alive[kept++] = ordinal;
        else matched.set(this.instances[ordinal]!.id, i);
      }
      alive.length = kept;
    }
    for (const ordinal of alive) matched.set(this.instances[ordinal]!.id, i);
    return matched;
  }

  /**
   * Marks the slot's holders (`marks[ordinal] === epoch`) and returns true, when walking them
   * costs less than asking the slot about each of `asking` instances; else returns false.
   * Why: a block shared by many instances keeps its other holders in a map of its own, and
   * thousands of such maps do not fit in a cache; one lookup per instance and block missed it
   * every time (at 10 000 instances most of a weighted routing decision), while a walk reads the
   * map in order.
   */
  private holdersMarked(slot: number, asking: number): boolean {
    const others = this.othersOf(slot);
    if (others === undefined || others.size > MARK_WALK_RATIO * asking) return false;
    if (this.marks.length < this.instances.length) this.marks = new Int32Array(Math.max(this.instances.length, 2 * this.marks.length));
    if (++this.epoch === MAX_EPOCH) {
      this.marks.fill(0);
      this.epoch = 1;
    }
    const holder = this.holderOf(slot);
    if (holder !== NONE) this.marks[holder] = this.epoch;
    for (const ordinal of others.keys()) this.marks[ordinal] = this.epoch;
    return true;
  }

  size(instanceId: string): number {
    const ordinal = this.ordinalOf.get(instanceId);
    return ordinal === undefined ? 0 : this.instances[ordinal]!.size;
  }

  // ── slots and holders ──────────────────────────────────────────────────────────────────────

  /** Makes the hash the instance's most recent use, adding it if the instance did not hold it. */
  private touch(hash: BlockId, ordinal: number, entries: InstanceEntries): void {
    const stamp = ++this.clock;
    let slot = this.slotOf.get(hash);
    if (slot === ABSENT) {
      slot = this.newSlot(hash);
      this.holdFirst(slot, ordinal, stamp);
      entries.size++;
    } else if (this.holderOf(slot) === ordinal) {
      this.slots[slot * SLOT_FIELDS + STAMP] = stamp;
    } else {
      const others = this.othersOf(slot);
      if (others?.has(ordinal)) others.set(ordinal, stamp);
      else if (this.holderOf(slot) === NONE) {
        // Held only by others, through the map: the first-holder field is free.
        this.holdFirst(slot, ordinal, stamp);
        entries.size++;
      } else {
        if (others === undefined) this.setOthers(slot, new Map([[ordinal, stamp]]));
        else others.set(ordinal, stamp);
        entries.size++;
      }
    }
    entries.uses.push(slot, stamp);
  }

  /** The slot's first holder (an instance's ordinal), or NONE. */
  private holderOf(slot: number): number {
    return this.slots[slot * SLOT_FIELDS + HOLDER]!;
  }

  /** Makes the instance the slot's first holder, with this stamp. */
  private holdFirst(slot: number, ordinal: number, stamp: number): void {
    this.slots[slot * SLOT_FIELDS + HOLDER] = ordinal;
    this.slots[slot * SLOT_FIELDS + STAMP] = stamp;
  }

  /** The instance's stamp on the slot, or NONE if it does not hold it. */
  private stampFor(slot: number, ordinal: number): number {
    if (this.holderOf(slot) === ordinal) return this.slots[slot * SLOT_FIELDS + STAMP]!;
    return this.othersOf(slot)?.get(ordinal) ?? NONE;
  }

  private holdersOf(slot: number): number[] {
    const holders: number[] = [];
    if (this.holderOf(slot) !== NONE) holders.push(this.holderOf(slot));
    const others = this.othersOf(slot);
    if (others) for (const ordinal of others.keys()) holders.push(ordinal);
    return holders;
  }

  /** The other holders' stamps, if any instance besides the first holder holds the slot. */
  private othersOf(slot: number): Map<number, number> | undefined {
    return this.slots[slot * SLOT_FIELDS + SHARED] === 1 ? this.otherHoldersAt[slot] : undefined;
  }

  private setOthers(slot: number, others: Map<number, number> | undefined): void {
    this.otherHoldersAt[slot] = others;
    this.slots[slot * SLOT_FIELDS + SHARED] = others === undefined ? 0 : 1;
  }

  /** The instance no longer holds the slot; a slot nobody holds is freed. */
  private unhold(slot: number, ordinal: number, entries: InstanceEntries): void {
    entries.size--;
    const others = this.othersOf(slot);
    if (this.holderOf(slot) === ordinal) this.slots[slot * SLOT_FIELDS + HOLDER] = NONE;
    else others!.delete(ordinal);
    if (others !== undefined && others.size === 0) this.setOthers(slot, undefined);
    if (this.holderOf(slot) === NONE && this.othersOf(slot) === undefined) this.freeSlot(slot);
  }

  /** Removes the instance's least recently used hash (only while it holds any). */
  private evictOldest(ordinal: number, entries: InstanceEntries): void {
    const { uses } = entries;
    for (;;) {
      const slot = uses.slotAt(uses.head);
      const stamp = uses.stampAt(uses.head);
      uses.head++;
      if (this.stampFor(slot, ordinal) === stamp) {
        this.unhold(slot, ordinal, entries);
        return;
      }
    }
  }

  /** Compacts the instance's uses when stale ones outnumber its live entries. */
  private compactIfStale(ordinal: number, entries: InstanceEntries): void {
    if (entries.uses.pending <= 2 * entries.size + 64) return;
    entries.uses.compact((slot, stamp) => this.stampFor(slot, ordinal) === stamp);
  }

  private newSlot(hash: BlockId): number {
    let slot = this.freeSlots.pop();
    if (slot === undefined) {
      slot = this.slotsUsed++;
      if (slot * SLOT_FIELDS === this.slots.length) this.growSlots();
      // Append to the holder maps in slot order: writing at an arbitrary index past the end
      // would turn the array into a dictionary, and every holder check reads it.
      this.otherHoldersAt.push(undefined);
    }
    this.slotOf.set(hash, slot);
    this.slots[slot * SLOT_FIELDS + HASH] = hash;
    this.slots[slot * SLOT_FIELDS + SHARED] = 0;
    return slot;
  }

  private freeSlot(slot: number): void {
    this.slotOf.delete(this.slots[slot * SLOT_FIELDS + HASH]!);
    this.freeSlots.push(slot);
  }

  private growSlots(): void {
    const slots = new Float64Array(this.slots.length * 2).fill(NONE);
    slots.set(this.slots);
    this.slots = slots;
  }

  private ordinalFor(instanceId: string): number {
    let ordinal = this.ordinalOf.get(instanceId);
    if (ordinal === undefined) {
      ordinal = this.freeOrdinals.pop() ?? this.instances.length;
      this.ordinalOf.set(instanceId, ordinal);
      this.instances[ordinal] = { id: instanceId, size: 0, uses: new UseQueue() };
    }
    return ordinal;
  }
}
