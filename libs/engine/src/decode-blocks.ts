import type { BlockId } from '@sluice/contracts';

/** What the count reads of a request: its prompt's full-block hashes, its progress, and whether it is counted. */
export interface DecodingSequence {
  readonly promptHashes: readonly BlockId[];
  readonly computed: number;
  decoding: boolean;
}

/**
 * The KV blocks held by the requests past their prefill, each distinct block once, kept up to date
 * as requests join and leave the decoding set and as their output grows, so a load snapshot reads
 * a number instead of walking the running batch. Walking it (with a request's stamp saying whether
 * it was counted) cost a pass over ~117 running requests at every snapshot of the bench's workload,
 * 8% of a twin run (`node --cpu-prof libs/twin/bench/twin-streamed.mjs 100000`); rebuilt as a set,
 * before that, half of it.
 *
 * Past its prefill a request holds at least its prompt's full blocks (`computed` ≥ the prompt), so
 * every one of its prompt hashes is held and may be shared: each is counted by how many decoding
 * requests hold it, so a prefix shared by several counts once and stays counted until the last of
 * them leaves. Its other blocks (its prompt's partial last block, its output) are its own.
 *
 * The engine calls `join` when a prefill finishes, `grew` when a decoding request's computed tokens
 * grow, and `leave` when a request leaves the running batch (finished, preempted, cancelled)
 * before its progress is reset; the engine's checkInvariants compares the count with a walk.
 */
export class DecodeBlocks<S extends DecodingSequence> {
  private readonly holders = new BlockHolders();
  /** Σ over decoding requests of their blocks past the prompt's full ones. */
  private ownBlocks = 0;

  constructor(private readonly blockSize: number) {}

  /** Its prefill is done: it decodes from now on (a request already counted is not counted twice). */
  join(seq: S): void {
    if (seq.decoding) return;
    seq.decoding = true;
    this.hold(seq.promptHashes, 1);
    this.ownBlocks += this.blocksFor(seq.computed) - seq.promptHashes.length;
  }

  /** Its computed tokens grew from `before` (a decode step); nothing for a request not decoding. */
  grew(seq: S, before: number): void {
    if (seq.decoding) this.ownBlocks += this.blocksFor(seq.computed) - this.blocksFor(before);
  }

  /** It left the running batch; call before its progress is reset. Nothing for a request not decoding. */
  leave(seq: S): void {
    if (!seq.decoding) return;
    seq.decoding = false;
    this.hold(seq.promptHashes, -1);
    this.ownBlocks -= this.blocksFor(seq.computed) - seq.promptHashes.length;
  }

  /** The distinct blocks the decoding requests hold. */
  count(): number {
    return this.holders.size + this.ownBlocks;
  }

  private blocksFor(tokens: number): number {
    return Math.ceil(tokens / this.blockSize);
  }

  private hold(hashes: readonly BlockId[], by: 1 | -1): void {
    for (const hash of hashes) this.holders.add(hash, by);
  }
}

/**
 * How many decoding requests hold each block hash: an open-addressing table of the hashes (53-bit
 * integers, so doubles) and their counts in typed arrays. A Map keyed by those doubles cost ~0.5
 * µs an update (a heap number per key, tombstones on delete), most of a twin run's engine time.
 * Linear probing; a removed hash's cluster is shifted back, so lookups never cross a tombstone.
 */
class BlockHolders {
  private keys = new Float64Array(256);
  private counts = new Int32Array(256);
  private mask = 255;
  /** Hashes held at least once. */
  size = 0;

  add(hash: number, by: 1 | -1): void {
    let slot = this.slotOf(hash);
    while (this.counts[slot]! > 0 && this.keys[slot] !== hash) slot = (slot + 1) & this.mask;
    const held = this.counts[slot]! + by;
    if (held < 0) throw new RangeError(`block ${hash} released more often than held`);
    if (this.counts[slot] === 0) {
      this.keys[slot] = hash;
      this.size++;
    }
    this.counts[slot] = held;
    if (held === 0) this.remove(slot);
    else if (this.size * 2 > this.mask) this.grow();
  }

  private slotOf(hash: number): number {
    // The low 32 bits and the high 21, mixed (the hash's bits are already uniform).
    return (Math.imul((hash >>> 0) ^ Math.floor(hash / 4_294_967_296), 0x9e3779b1) >>> 0) & this.mask;
  }

  /** Empties `slot` and moves back any later entry of its cluster that may no longer be reached. */
  private remove(slot: number): void {
    const { keys, counts, mask } = this;
    this.size--;
    let hole = slot;
    for (let next = (slot + 1) & mask; counts[next]! > 0; next = (next + 1) & mask) {
      const home = this.slotOf(keys[next]!);
      // The entry at `next` may move to the hole if its home is not in (hole, next], cyclically.
      const reachable = hole <= next ? home > hole && home <= next : home > hole || home <= next;
      if (reachable) continue;
      keys[hole] = keys[next]!;
      counts[hole] = counts[next]!;
      counts[next] = 0;
      hole = next;
    }
    counts[hole] = 0;
  }

  private grow(): void {
    const { keys, counts } = this;
    this.keys = new Float64Array(keys.length * 2);
    this.counts = new Int32Array(keys.length * 2);
    this.mask = keys.length * 2 - 1;
    this.size = 0;
    for (let i = 0; i < keys.length; i++) {
      if (counts[i]! === 0) continue;
      let slot = this.slotOf(keys[i]!);
      while (this.counts[slot]! > 0) slot = (slot + 1) & this.mask;
      this.keys[slot] = keys[i]!;
      this.counts[slot] = counts[i]!;
      this.size++;
    }
  }
}
