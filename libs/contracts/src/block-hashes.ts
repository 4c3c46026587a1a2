import { createHash } from 'node:crypto';
import { z } from 'zod';

/** KV cache block size in tokens (docs/behaviour.md §1). */
export const BLOCK_SIZE = 16;

/**
 * Hierarchical block hashes of a prompt, as BLIS computes them: block i's hash is the hex SHA-256
 * of (hash of block i-1) followed by the block's token ids, each followed by "|". Only full
 * blocks are hashed; a partial tail block is never shared. Chaining makes a block's hash name its
 * whole prefix, so "the longest run of leading cached blocks" is a prefix match.
 */
export function blockHashes(tokenIds: ArrayLike<number>, blockSize: number = BLOCK_SIZE): string[] {
  const hashes: string[] = [];
  let previous = '';
  for (let start = 0; start + blockSize <= tokenIds.length; start += blockSize) {
    let text = previous;
    for (let i = start; i < start + blockSize; i++) text += `${tokenIds[i]}|`;
    previous = createHash('sha256').update(text).digest('hex');
    hashes.push(previous);
  }
  return hashes;
}

/**
 * A block hash as the cluster carries and compares it: the first 52 bits of the hex SHA-256 (13
 * hex digits), a non-negative safe integer. Nothing in the cluster reads a hash's value, only
 * whether two are equal, so a prefix of a uniform hash names a block as well as the whole of it
 * while it collides with probability ~n²/2⁵³ (under 10⁻⁵ for the ~10⁵ blocks the indexes of a
 * large cluster hold). A number is a cheap key: the indexes keep it in typed arrays, with no
 * string to chase or for the garbage collector to trace.
 */
export type BlockId = number;

/** A block id on the wire: what `blockIdOf` returns. */
export const BlockIdSchema = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/** The id of a hex block hash: its first 13 hex digits. */
export function blockIdOf(hexHash: string): BlockId {
  return Number.parseInt(hexHash.slice(0, 13), 16);
}

/** The prompt's block ids: `blockHashes` (BLIS's chained SHA-256), each as its `blockIdOf`. */
export function blockIds(tokenIds: ArrayLike<number>, blockSize: number = BLOCK_SIZE): BlockId[] {
  return blockHashes(tokenIds, blockSize).map(blockIdOf);
}
