import { LruSet } from './lru-set.js';
import type { PrefixLookup } from '../cluster-view.js';

/** Block hashes remembered per instance (BEHAVIOUR.md §4, after BLIS's router-side cache index). */
export const DEFAULT_PREFIX_INDEX_CAPACITY = 10_000;

/**
 * The router-side prefix index: what the control plane believes each instance has cached, as a
 * per-instance LRU of prompt block hashes. It is a belief, not the instance's KV cache: it learns
 * from routing decisions (the router records a request's blocks on the instance it chose) and from
 * KV events, and forgets by LRU. The router and admission's `slo-predictive` share this one class.
 *
 * Each instance's entries live in an `LruSet`.
 */
export class PrefixIndex implements PrefixLookup {
  private readonly byInstance = new Map<string, LruSet>();
  /**
   * The same beliefs inverted: which instances hold each hash. Scoring one request against every
   * instance then costs what the matches cost, not one lookup per instance (at 1,000 instances
   * the per-instance loop dominated a weighted routing decision; see docs/benchmarks.md).
   */
  private readonly byHash = new Map<string, Holders>();

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
      held = new LruSet();
      this.byInstance.set(instanceId, held);
    }
    // Refresh last block first, so a prompt's leading blocks end up the most recent: a lookup
    // counts only a leading run, so losing block 0 would make every later block useless. (vLLM
    // frees a request's blocks in reverse order for the same reason; BEHAVIOUR.md §1.)
    for (let i = blockHashes.length - 1; i >= 0; i--) {
      const hash = blockHashes[i]!;
      if (held.touch(hash)) this.hold(hash, instanceId);
    }
    while (held.size > this.capacityPerInstance) this.unhold(held.evictOldest(), instanceId);
  }

  /** Forgets these hashes for the instance (KV "removed" events). */
  remove(instanceId: string, blockHashes: readonly string[]): void {
    const entries = this.byInstance.get(instanceId);
    if (!entries) return;
    for (const hash of blockHashes) if (entries.delete(hash)) this.unhold(hash, instanceId);
    if (entries.size === 0) this.byInstance.delete(instanceId);
  }

  /** Forgets an instance entirely (deregistered / lost). */
  dropInstance(instanceId: string): void {
    const entries = this.byInstance.get(instanceId);
    if (!entries) return;
    for (const hash of entries.keys()) this.unhold(hash, instanceId);
    this.byInstance.delete(instanceId);
  }

  /**
   * Number of LEADING blocks of `blockHashes` present for the instance, stopping at the first
   * miss: an engine reuses only the longest run of leading cached blocks, so a hit after a miss
   * saves no prefill (BEHAVIOUR.md §1, "KV cache"). A read: it does not change LRU order.
   */
  matchedBlocks(instanceId: string, blockHashes: readonly string[]): number {
    const entries = this.byInstance.get(instanceId);
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
    let alive = typeof first === 'string' ? [first] : [...first];
    for (let i = 0; i < blockHashes.length && alive.length > 0; i++) {
      const holders = i === 0 ? first : this.byHash.get(blockHashes[i]!);
      if (!holders) break;
      if (i > 0) alive = alive.filter((id) => holds(holders, id));
      for (const id of alive) matched.set(id, i + 1);
    }
    return matched;
  }

  size(instanceId: string): number {
    return this.byInstance.get(instanceId)?.size ?? 0;
  }

  private hold(hash: string, instanceId: string): void {
    const holders = this.byHash.get(hash);
    if (holders === undefined) this.byHash.set(hash, instanceId);
    else if (typeof holders === 'string') {
      if (holders !== instanceId) this.byHash.set(hash, new Set([holders, instanceId]));
    } else holders.add(instanceId);
  }

  private unhold(hash: string, instanceId: string): void {
    const holders = this.byHash.get(hash);
    if (holders === undefined) return;
    if (typeof holders === 'string') {
      if (holders === instanceId) this.byHash.delete(hash);
      return;
    }
    holders.delete(instanceId);
    if (holders.size === 1) this.byHash.set(hash, holders.values().next().value as string);
  }
}

/**
 * The instances holding one hash: most hashes (a prompt's own blocks) are held by one instance,
 * so that case is the id itself rather than a Set allocated per hash.
 */
type Holders = string | Set<string>;

const holds = (holders: Holders, instanceId: string): boolean => (typeof holders === 'string' ? holders === instanceId : holders.has(instanceId));
