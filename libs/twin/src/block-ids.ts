import { BLOCK_SIZE, type BlockId } from '@sluice/contracts';

/** Turns a prompt's token ids into the chained ids of its full KV blocks. */
export type BlockHasher = (tokenIds: ArrayLike<number>) => BlockId[];

/**
 * The twin's block ids: a chained 64-bit hash (two independent 32-bit lanes) of each full block's
 * token ids, seeded with the previous block's lanes, of which the id keeps 53 bits (all of the
 * first lane, 21 of the second): a non-negative safe integer like the gateway's ids.
 *
 * Why not the gateway's SHA-256 (`blockIds` in contracts, docs/behaviour.md §1)? Nothing in the
 * cluster reads a hash's value: the engine's prefix cache, the router's prefix index and admission's
 * copy of it only ever ask whether two hashes are equal. Any chained hash that does not collide
 * therefore gives the same decisions, and SHA-256 cost ~1.1 µs a block (~35 µs a 512-token
 * prompt, over half of the twin's budget per request). This one costs ~0.1 µs a block. A
 * collision matters only between blocks held at the same time: with the ~10⁵ blocks the indexes
 * of a 4-instance run hold, each new block collides with one of them with probability ~10⁵/2⁵³,
 * ~4·10⁻⁴ over the 32 million blocks of a million 512-token prompts. `twin.scenarios.spec.ts`
 * checks that a run with SHA-256 ids gives byte-identical records.
 *
 * Mixing: MurmurHash3's 32-bit block and finalization steps (Austin Appleby, public domain), one
 * lane per seed; the chaining seeds lane k of block i with lane k of block i−1.
 */
export function fastBlockIds(tokenIds: ArrayLike<number>, blockSize: number = BLOCK_SIZE): BlockId[] {
  const ids: BlockId[] = [];
  let h1 = 0x9747b28c;
  let h2 = 0x5bd1e995;
  for (let start = 0; start + blockSize <= tokenIds.length; start += blockSize) {
    for (let i = start; i < start + blockSize; i++) {
      const token = tokenIds[i]! | 0;
      h1 = mixLane(h1, token);
      h2 = mixLane(h2, token ^ 0x85ebca6b);
    }
    h1 = finalize(h1 ^ blockSize);
    h2 = finalize(h2 ^ blockSize);
    ids.push((h1 >>> 0) * 2_097_152 + (h2 >>> 11));
  }
  return ids;
}

function mixLane(h: number, value: number): number {
  let k = Math.imul(value, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function finalize(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}
