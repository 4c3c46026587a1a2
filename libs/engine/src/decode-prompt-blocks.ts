import type { BlockId } from '@sluice/contracts';

/**
 * The distinct prompt blocks of the requests past their prefill, kept up to date as requests
 * join and leave the decoding set rather than rebuilt for every load snapshot. Rebuilt, it was a
 * set of every decoding request's prompt hashes (~30 requests × ~32 blocks) at each snapshot, and
 * a snapshot follows every step: half of a twin run's time (1.0 s of 1.96 s per 10,000 requests,
 * `node --cpu-prof libs/twin/bench/twin.bench.mjs`). A request's prompt hashes never change, so
 * between two snapshots only the requests that joined or left cost anything.
 *
 * Each block is counted by how many decoding requests hold it, so a prefix shared by several
 * counts once and stays counted until the last of them leaves.
 */
export class DecodePromptBlocks<S extends { readonly promptHashes: readonly BlockId[] }> {
  /** The decoding requests of the last count, and of the count under way (`see` appends), swapped at each change. */
  private counted: S[] = [];
  private seen: S[] = [];
  private readonly holders = new Map<BlockId, number>();

  /** Starts a count: then `see` each request now past its prefill (each once), then `count`. */
  begin(): void {
    this.seen.length = 0;
  }

  see(seq: S): void {
    this.seen.push(seq);
  }

  /** The distinct prompt blocks of the requests seen since `begin`. */
  count(): number {
    const { counted, seen } = this;
    // Most steps change no request's phase: the same requests in the same order cost a comparison.
    if (seen.length === counted.length && seen.every((seq, i) => seq === counted[i])) return this.holders.size;
    const now = new Set(seen);
    const before = new Set(counted);
    for (const seq of seen) if (!before.has(seq)) this.hold(seq.promptHashes, 1);
    for (const seq of counted) if (!now.has(seq)) this.hold(seq.promptHashes, -1);
    this.counted = seen;
    this.seen = counted;
    return this.holders.size;
  }

  private hold(hashes: readonly BlockId[], by: 1 | -1): void {
    const { holders } = this;
    for (const hash of hashes) {
      const held = (holders.get(hash) ?? 0) + by;
      if (held === 0) holders.delete(hash);
      else holders.set(hash, held);
    }
  }
}
