import { BLOCK_SIZE } from '@sluice/contracts';

/** Turns a prompt's token ids into the chained ids of its full KV blocks. */
export type BlockHasher = (tokenIds: readonly number[]) => string[];

/**
 * The twin's block ids: a chained 64-bit hash (two independent 32-bit lanes) of each full block's
 * token ids, seeded with the previous block's id, written as a 4-character string (one UTF-16 code unit per
 * 16 bits: never printed, only compared, and a short key is cheap to hash and compare).
 *
 * Why not the gateway's SHA-256 (`blockHashes` in contracts, BEHAVIOUR.md §1)? Nothing in the
 * cluster reads a hash's value: the engine's prefix cache, the router's prefix index and admission's
 * copy of it only ever ask whether two hashes are equal. Any chained hash that does not collide
 * therefore gives the same decisions, and SHA-256 cost ~1.1 µs a block (~35 µs a 512-token
 * prompt, over half of the twin's budget per request). This one costs ~0.1 µs a block. Two
 * distinct prefixes share an id with probability ~n²/2⁶⁵: ~3·10⁻⁵ over the 32 million blocks of a
 * million 512-token prompts. `twin.scenarios.spec.ts` checks that a run with SHA-256 ids gives
 * byte-identical records.
 *
 * Mixing: MurmurHash3's 32-bit block and finalization steps (Austin Appleby, public domain), one
 * lane per seed; the chaining seeds lane k of block i with lane k of block i−1.
 */
export function fastBlockIds(tokenIds: readonly number[], blockSize: number = BLOCK_SIZE): string[] {
  const ids: string[] = [];
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
    ids.push(String.fromCharCode(h1 >>> 16, h1 & 0xffff, h2 >>> 16, h2 & 0xffff));
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
