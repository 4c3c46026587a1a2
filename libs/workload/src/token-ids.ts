import type { SeededRandom } from '@sluice/collections';
import type { Uniform } from './math.js';

/** Token ids are uniform in [0, TOKEN_VOCAB_SIZE). */
export const TOKEN_VOCAB_SIZE = 128_000;

/**
 * A prompt's token ids. A typed array, not a `number[]`: its ids sit in one buffer outside the
 * JS heap (4 bytes an id rather than 8), which the garbage collector never scans. A
 * million-request workload of ~512-token prompts is ~2 GB of ids; held as arrays they were
 * 4.3 GB of the heap, and every young-generation collection of a run over them grew costlier
 * with it (docs/benchmarks.md, "The twin").
 */
export type TokenIds = Uint32Array;

/** No token ids: the prefix of a prompt that has none. */
export const NO_TOKENS: TokenIds = new Uint32Array(0);

/**
 * `count` token ids drawn from `rng`, after the (shared) `prefix`. A seeded source fills them in
 * bulk (the same draws as a call per id, at a fraction of the cost: ~500 ids a request).
 */
export function drawPrompt(rng: Uniform | SeededRandom, prefix: TokenIds, count: number): TokenIds {
  const ids = new Uint32Array(prefix.length + count);
  ids.set(prefix);
  if ('fillBelow' in rng) rng.fillBelow(ids, prefix.length, TOKEN_VOCAB_SIZE);
  else for (let i = prefix.length; i < ids.length; i++) ids[i] = Math.floor(rng() * TOKEN_VOCAB_SIZE);
  return ids;
}

/** `count` token ids drawn from `rng`. */
export const drawTokenIds = (rng: Uniform | SeededRandom, count: number): TokenIds => drawPrompt(rng, NO_TOKENS, count);
