import type { BlockId } from '@sluice/contracts';

/**
 * The distinct prompt blocks of the requests past their prefill, kept up to date as requests
 * join and leave the decoding set rather than rebuilt for every load snapshot. Rebuilt, it was a
 * set of every decoding request's prompt hashes (~30 requests × ~32 blocks) at each snapshot, and
 * a snapshot follows every step: half of a twin run's time (4.1 s of 7.9 s for 30,000 requests,
 * `TWIN_BENCH_SIZES=30000 node --cpu-prof libs/twin/bench/twin.bench.mjs`). A request's prompt
 * hashes never change, so between two snapshots only the requests that joined or left cost
 * anything, and a request's own stamp says whether it is counted (no set of the requests).
 *
 * Each block is counted by how many decoding requests hold it, so a prefix shared by several
 * counts once and stays counted until the last of them leaves.
 */
export class DecodePromptBlocks<S extends { readonly promptHashes: readonly BlockId[]; decodeCountedIn: number }> {
  /** The decoding requests of the last count, and of the count under way (`see` appends), swapped at each count. */
  private counted: S[] = [];
  private seen: S[] = [];
  private readonly holders = new BlockHolders();
  /** The count under way, stamped on each request it sees (so leaving costs no set of the requests). */
  private pass = 0;

  /** Starts a count: then `see` each request now past its prefill (each once), then `count`. */
  begin(): void {
    this.pass++;
    this.seen.length = 0;
  }

  see(seq: S): void {
    if (seq.decodeCountedIn === 0) this.hold(seq.promptHashes, 1);
    seq.decodeCountedIn = this.pass;
    this.seen.push(seq);
  }

  /** Forgets the requests not seen since `begin` (finished, preempted, cancelled); returns the distinct prompt blocks of the rest. */
  count(): number {
    const { counted, seen, pass } = this;
    for (let i = 0; i < counted.length; i++) {
      const seq = counted[i]!;
      if (seq.decodeCountedIn === pass) continue;
      this.hold(seq.promptHashes, -1);
      seq.decodeCountedIn = 0;
    }
    this.counted = seen;
    this.seen = counted;
    return this.holders.size;
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
