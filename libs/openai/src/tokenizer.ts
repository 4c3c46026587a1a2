import { VOCABULARY_SIZE } from '@sluice/contracts';

/**
 * A deterministic stand-in for a BPE tokenizer: runs of up to 4 letters, up to 3 digits, or one
 * other symbol, each with its leading space, which gives about the 4 characters per token of
 * English BPE. The same text always gives the same ids, so a repeated prompt prefix gives the
 * same block hashes and prefix caching and prefix-aware routing see real reuse.
 */
const PIECE = /\s?(?:[\p{L}]{1,4}|\p{N}{1,3}|[^\s\p{L}\p{N}])|\s+/gu;

/** FNV-1a, 32-bit: cheap and well spread for short strings. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

export function tokenize(text: string): number[] {
  const ids: number[] = [];
  for (const match of text.matchAll(PIECE)) ids.push(tokenIdOf(match[0]));
  return ids;
}

/** The id of one token's text, as `tokenize` gives it to each piece. */
export function tokenIdOf(piece: string): number {
  return fnv1a(piece) % VOCABULARY_SIZE;
}
