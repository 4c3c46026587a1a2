import type { BlockId, Micros } from '@sluice/contracts';
import type { PrefixLookup } from '../cluster-view.js';

/**
 * Blocks remembered per instance. An instance whose events claim more (a worker with a larger
 * cache than this, or a lost `removed`) loses its oldest-stored blocks first, so memory stays
 * bounded at capacity × instances whatever the workers send.
 */
export const DEFAULT_KV_EVENT_INDEX_CAPACITY = 10_000;

/**
 * BLIS's cache-signal delay (sim/cluster/deployment.go, DefaultCacheSignalDelay = 50 ms, at
 * inference-sim/inference-sim b563c4405b7847eaf682c6d603065c1faca3ca03): the index a scorer reads
 * is refreshed once it is at least this old. 0 applies every event at once.
 */
export const DEFAULT_KV_SNAPSHOT_REFRESH_US = 50_000;

/** One instance's KV event, as the index needs it (`KvEvent` in libs/contracts has this shape). */
export interface KvBlockEvent {
  readonly instanceId: string;
  readonly atUs: Micros;
  readonly stored: readonly BlockId[];
  readonly removed: readonly BlockId[];
  /** Everything the instance held before is gone (applied first, in the event's place in the queue). */
  readonly cleared?: true;
}

/** What the index reports of itself: memory bounds and how stale the view a scorer reads is. */
export interface KvIndexStats {
  readonly instances: number;
  /** Blocks held, summed over instances (each ≤ capacity). */
  readonly blocks: number;
  /** Events received and not yet visible to scorers (they wait for the next refresh). */
  readonly pendingEvents: number;
  /** Blocks dropped because an instance claimed more than the capacity. */
  readonly overflowDrops: number;
}

/**
 * The router's KV-event index (docs/behaviour.md §4, "precise prefix"): per instance, the set of
 * block hashes its engine reports holding, from the workers' stored and removed events; an
 * instance's set is cleared when it leaves routing or restarts. Unlike `PrefixIndex` it is not
 * a belief learnt from decisions: it is what the caches said, as late as the events are.
 *
 * Staleness is modelled as BLIS models it: scorers read a snapshot refreshed lazily, at a
 * decision, once it is at least `refreshUs` old (BLIS's CachedSnapshotProvider.RefreshCacheIfNeeded,
 * sim/cluster/snapshot.go at b563c440). Here the snapshot is not a copy of every table (10 M
 * entries at 1,000 instances): events wait in a queue and are applied at the refresh, which
 * yields the same view at the cost of the events alone.
 *
 * Layout: a map from block hash to its holders (instance ordinals), so a lookup walks the
 * request's blocks once for all instances; a block held by one instance stores the ordinal
 * itself, not a Set (at 1,000 instances × 10,000 blocks a Set per block was most of the memory);
 * per instance, its blocks in store order, for the capacity bound and for clearing.
 */
export class KvEventIndex implements PrefixLookup {
  /** A block's holders: one ordinal (most blocks: one instance's private context), a Set when shared. */
  private readonly holdersOf = new Map<BlockId, number | Set<number>>();
  private readonly blocksOf: (Set<BlockId> | undefined)[] = [];
  private readonly ordinalOf = new Map<string, number>();
  private readonly idOf: string[] = [];
  private readonly freeOrdinals: number[] = [];
  /** Last event applied per instance (its `atUs`), for the staleness on a decision's span. */
  private readonly appliedAtUs = new Map<string, Micros>();
  private pending: KvBlockEvent[] = [];
  private refreshedAtUs = Number.NEGATIVE_INFINITY;
  private dropped = 0;

  constructor(
    private readonly capacityPerInstance = DEFAULT_KV_EVENT_INDEX_CAPACITY,
    private readonly refreshUs = DEFAULT_KV_SNAPSHOT_REFRESH_US,
  ) {
    if (!Number.isInteger(capacityPerInstance) || capacityPerInstance < 1) {
      throw new RangeError(`KV event index capacity must be a positive integer, got ${capacityPerInstance}`);
    }
    if (!(refreshUs >= 0)) throw new RangeError(`KV snapshot refresh must be ≥ 0 µs, got ${refreshUs}`);
  }

  /** Takes one event; scorers see it at once when `refreshUs` is 0, else at the next refresh. */
  receive(event: KvBlockEvent): void {
    if (this.refreshUs === 0) this.apply(event);
    else this.pending.push(event);
  }

  /**
   * BLIS's lazy refresh: at a decision, when the view is at least `refreshUs` old, every event
   * received so far becomes visible. Returns whether it refreshed.
   */
  refreshIfDue(nowUs: Micros): boolean {
    if (this.refreshUs === 0 || nowUs - this.refreshedAtUs < this.refreshUs) return false;
    const events = this.pending;
    this.pending = [];
    for (const event of events) this.apply(event);
    this.refreshedAtUs = nowUs;
    return true;
  }

  /** The instance's cache is gone (it left routing, restarted, or said it cleared): forget all of it. */
  clear(instanceId: string): void {
    this.pending = this.pending.filter((e) => e.instanceId !== instanceId);
    this.appliedAtUs.delete(instanceId);
    const ordinal = this.ordinalOf.get(instanceId);
    if (ordinal === undefined) return;
    for (const block of this.blocksOf[ordinal]!) this.unhold(block, ordinal);
    this.blocksOf[ordinal] = undefined;
    this.ordinalOf.delete(instanceId);
    this.freeOrdinals.push(ordinal);
  }

  /** Age of the newest event scorers see for this instance; Infinity when none. */
  ageUs(instanceId: string, nowUs: Micros): number {
    const at = this.appliedAtUs.get(instanceId);
    return at === undefined ? Number.POSITIVE_INFINITY : nowUs - at;
  }

  /** How old the view scorers read is: time since the last refresh (0 when events apply at once). */
  viewAgeUs(nowUs: Micros): number {
    return this.refreshUs === 0 ? 0 : nowUs - this.refreshedAtUs;
  }

  blockCount(instanceId: string): number {
    const ordinal = this.ordinalOf.get(instanceId);
    return ordinal === undefined ? 0 : this.blocksOf[ordinal]!.size;
  }

  stats(): KvIndexStats {
    let blocks = 0;
    for (const set of this.blocksOf) blocks += set?.size ?? 0;
    return { instances: this.ordinalOf.size, blocks, pendingEvents: this.pending.length, overflowDrops: this.dropped };
  }

  /** Leading blocks of the request the instance holds, as the visible view says (BLIS's GetCachedBlocks). */
  matchedBlocks(instanceId: string, blockHashes: readonly BlockId[]): number {
    const ordinal = this.ordinalOf.get(instanceId);
    if (ordinal === undefined) return 0;
    const held = this.blocksOf[ordinal]!;
    let n = 0;
    while (n < blockHashes.length && held.has(blockHashes[n]!)) n++;
    return n;
  }

  /**
   * Every instance's leading run at once: the holders of block 0, narrowed block by block; an
   * instance's run ends at the first block it lacks. Costs the holders of the matched blocks,
   * not one walk per instance.
   */
  matchedBlocksByInstance(blockHashes: readonly BlockId[]): ReadonlyMap<string, number> {
    const matched = new Map<string, number>();
    if (blockHashes.length === 0) return matched;
    const first = this.holdersOf.get(blockHashes[0]!);
    if (first === undefined) return matched;
    let live = typeof first === 'number' ? [first] : [...first];
    for (let i = 1; i < blockHashes.length && live.length > 0; i++) {
      const holders = this.holdersOf.get(blockHashes[i]!);
      const next: number[] = [];
      for (const ordinal of live) {
        if (holders !== undefined && (typeof holders === 'number' ? holders === ordinal : holders.has(ordinal))) next.push(ordinal);
        else matched.set(this.idOf[ordinal]!, i);
      }
      live = next;
    }
    for (const ordinal of live) matched.set(this.idOf[ordinal]!, blockHashes.length);
    return matched;
  }

  private apply(event: KvBlockEvent): void {
    const ordinal = this.ordinalFor(event.instanceId);
    const held = this.blocksOf[ordinal]!;
    if (event.cleared) {
      for (const block of held) this.unhold(block, ordinal);
      held.clear();
    }
    // Removed first: an engine step that evicts a block and stores it again ends holding it.
    for (const block of event.removed) {
      if (held.delete(block)) this.unhold(block, ordinal);
    }
    for (const block of event.stored) {
      if (held.has(block)) continue;
      held.add(block);
      this.hold(block, ordinal);
    }
    // A Set iterates in insertion order: its first entries are the oldest stored.
    while (held.size > this.capacityPerInstance) {
      const oldest = held.values().next().value as BlockId;
      held.delete(oldest);
      this.unhold(oldest, ordinal);
      this.dropped++;
    }
    const previous = this.appliedAtUs.get(event.instanceId);
    if (previous === undefined || event.atUs > previous) this.appliedAtUs.set(event.instanceId, event.atUs);
  }

  private hold(block: BlockId, ordinal: number): void {
    const holders = this.holdersOf.get(block);
    if (holders === undefined) this.holdersOf.set(block, ordinal);
    else if (typeof holders !== 'number') holders.add(ordinal);
    else if (holders !== ordinal) this.holdersOf.set(block, new Set([holders, ordinal]));
  }

  private unhold(block: BlockId, ordinal: number): void {
    const holders = this.holdersOf.get(block);
    if (holders === undefined) return;
    if (typeof holders === 'number') {
      if (holders === ordinal) this.holdersOf.delete(block);
      return;
    }
    holders.delete(ordinal);
    if (holders.size === 1) this.holdersOf.set(block, holders.values().next().value as number);
  }

  private ordinalFor(instanceId: string): number {
    let ordinal = this.ordinalOf.get(instanceId);
    if (ordinal !== undefined) return ordinal;
    ordinal = this.freeOrdinals.pop() ?? this.idOf.length;
    this.ordinalOf.set(instanceId, ordinal);
    this.idOf[ordinal] = instanceId;
    this.blocksOf[ordinal] = new Set();
    return ordinal;
  }
}
