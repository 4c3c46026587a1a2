import { createHash } from 'node:crypto';

/** KV cache block size in tokens (BEHAVIOUR.md §1). */
export const BLOCK_SIZE = 16;

/**
 * Hierarchical block hashes of a prompt, as BLIS computes them: block i's hash is the hex SHA-256
 * of (hash of block i-1) followed by the block's token ids, each followed by "|". Only full
 * blocks are hashed; a partial tail block is never shared. Chaining makes a block's hash name its
 * whole prefix, so "the longest run of leading cached blocks" is a prefix match.
 */
export function blockHashes(tokenIds: readonly number[], blockSize: number = BLOCK_SIZE): string[] {
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
