import type { PrefixLookup } from '../cluster-view.js';

/** Block hashes remembered per instance (BEHAVIOUR.md §4, after BLIS's router-side cache index). */
export const DEFAULT_PREFIX_INDEX_CAPACITY = 10_000;

/**
 * The router-side prefix index: what the control plane believes each instance has cached, as a
 * per-instance LRU of prompt block hashes. It is a belief, not the instance's KV cache: it learns
 * from routing decisions (the router records a request's blocks on the instance it chose) and from
 * KV events, and forgets by LRU. The router and admission's `slo-predictive` share this one class.
 *
 * Each instance's entries live in a Set, whose iteration order is insertion order: the first entry
 * is the least recently used, and delete + add moves an entry to the most-recent end.
 */
export class PrefixIndex implements PrefixLookup {
  private readonly byInstance = new Map<string, Entries>();
  /**
   * The same beliefs inverted: which instances hold each hash. Scoring one request against every
   * instance then costs what the matches cost, not one lookup per instance (at 1,000 instances
   * the per-instance loop dominated a weighted routing decision; see docs/benchmarks.md).
   */
  private readonly byHash = new Map<string, Set<string>>();

  constructor(private readonly capacityPerInstance = DEFAULT_PREFIX_INDEX_CAPACITY) {
    if (!Number.isInteger(capacityPerInstance) || capacityPerInstance < 1) {
      throw new RangeError(`prefix index capacity must be a positive integer, got ${capacityPerInstance}`);
    }
  }

  /** Adds (or refreshes to most-recently-used) these block hashes for the instance; evicts the LRU ones beyond capacity. */
  record(instanceId: string, blockHashes: readonly string[]): void {
    if (blockHashes.length === 0) return;
    let held = this.byInstance.get(instanceId);
    if (!held) {
      held = new Entries();
      this.byInstance.set(instanceId, held);
    }
    const entries = held.hashes;
    // Refresh last block first, so a prompt's leading blocks end up the most recent: a lookup
    // counts only a leading run, so losing block 0 would make every later block useless. (vLLM
    // frees a request's blocks in reverse order for the same reason; BEHAVIOUR.md §1.)
    for (let i = blockHashes.length - 1; i >= 0; i--) {
      const hash = blockHashes[i]!;
      if (!entries.delete(hash)) this.holdersOf(hash).add(instanceId);
      entries.add(hash);
    }
    while (entries.size > this.capacityPerInstance) {
      const oldest = held.oldest();
      entries.delete(oldest);
      this.unhold(oldest, instanceId);
    }
  }

  /** Forgets these hashes for the instance (KV "removed" events). */
  remove(instanceId: string, blockHashes: readonly string[]): void {
    const entries = this.byInstance.get(instanceId)?.hashes;
    if (!entries) return;
    for (const hash of blockHashes) if (entries.delete(hash)) this.unhold(hash, instanceId);
    if (entries.size === 0) this.byInstance.delete(instanceId);
  }

  /** Forgets an instance entirely (deregistered / lost). */
  dropInstance(instanceId: string): void {
    const entries = this.byInstance.get(instanceId)?.hashes;
    if (!entries) return;
    for (const hash of entries) this.unhold(hash, instanceId);
    this.byInstance.delete(instanceId);
  }

  /**
   * Number of LEADING blocks of `blockHashes` present for the instance, stopping at the first
   * miss: an engine reuses only the longest run of leading cached blocks, so a hit after a miss
   * saves no prefill (BEHAVIOUR.md §1, "KV cache"). A read: it does not change LRU order.
   */
  matchedBlocks(instanceId: string, blockHashes: readonly string[]): number {
    const entries = this.byInstance.get(instanceId)?.hashes;
    if (!entries) return 0;
    let matched = 0;
    while (matched < blockHashes.length && entries.has(blockHashes[matched]!)) matched++;
    return matched;
  }

  /**
   * `matchedBlocks` for every instance at once: the instances holding at least the first block,
   * each with its leading-run length. Walks the request's blocks once, narrowing the holders.
   */
  matchedBlocksByInstance(blockHashes: readonly string[]): ReadonlyMap<string, number> {
    const matched = new Map<string, number>();
    const first = blockHashes.length > 0 ? this.byHash.get(blockHashes[0]!) : undefined;
    if (!first) return matched;
    let alive = [...first];
    for (let i = 0; i < blockHashes.length && alive.length > 0; i++) {
      const holders = i === 0 ? first : this.byHash.get(blockHashes[i]!);
      if (!holders) break;
      if (i > 0) alive = alive.filter((id) => holders.has(id));
      for (const id of alive) matched.set(id, i + 1);
    }
    return matched;
  }

  size(instanceId: string): number {
    return this.byInstance.get(instanceId)?.hashes.size ?? 0;
  }

  private holdersOf(hash: string): Set<string> {
    let holders = this.byHash.get(hash);
    if (!holders) {
      holders = new Set();
      this.byHash.set(hash, holders);
    }
    return holders;
  }

  private unhold(hash: string, instanceId: string): void {
    const holders = this.byHash.get(hash);
    if (!holders) return;
    holders.delete(instanceId);
    if (holders.size === 0) this.byHash.delete(hash);
  }
}

/**
 * One instance's hashes, least recently used first, and a cursor on the oldest one. Looking for
 * the oldest with a fresh iterator walks past every entry deleted since the Set last compacted
 * (a hole per eviction and per refresh): at full capacity that walk was most of `record`. The
 * cursor is a Set iterator kept between calls: by the language's rules a live iterator skips
 * entries deleted before it reaches them and visits entries added later, and eviction only takes
 * entries from the old end, so every live entry lies ahead of it and its next value is the
 * oldest live entry, as a fresh iterator's first would be.
 */
class Entries {
  readonly hashes = new Set<string>();
  private cursor: Iterator<string> | undefined;

  /** The least recently used hash (the caller deletes it). Only while the set is not empty. */
  oldest(): string {
    this.cursor ??= this.hashes.values();
    return this.cursor.next().value as string;
  }
}
