import type { ClusterView, InstanceView, PolicyRequest } from '../../cluster-view.js';

/**
 * One signal of the `weighted` routing policy (docs/behaviour.md §4, after the llm-d Endpoint
 * Picker's scorers): a score per candidate, higher = better, each in [0, 1]. Batch form, one
 * call for all candidates, so a scorer can normalise across them (queue-depth's min-max).
 */
export interface Scorer {
  readonly name: string;
  /**
   * One score per candidate, in the candidates' order, written into `out` when given (resized to
   * the candidates; the caller reuses it from one decision to the next), else into a new array;
   * either way the array is returned and the caller may change it.
   */
  score(request: PolicyRequest, candidates: readonly InstanceView[], cluster: ClusterView, out?: number[]): number[];
}

/**
 * `out` resized to n entries (its old values still there, new ones 0), or a new array of n zeros
 * when none is given. Grown by push, not by setting its length: an array with holes reads each
 * double back boxed in a fresh heap number wherever a hole might come out (decision.ts's ranking
 * read ~160 KB per decision that way at 10 000 candidates).
 */
export function scoreArray(n: number, out: number[] = []): number[] {
  if (out.length > n) out.length = n;
  while (out.length < n) out.push(0);
  return out;
}

/** x clamped to [0, 1]; NaN reads 0. */
export function clampScore(x: number): number {
  return x > 0 ? (x < 1 ? x : 1) : 0;
}

/**
 * Every entry of `scores` set to `value`, in a loop: Array.prototype.fill(0) turns an array of
 * doubles into one of small integers, and the next fractional score turns it back, a new copy
 * of the whole array each way (at 10 000 candidates, most of prefix-affinity's allocation).
 */
export function fillScores(scores: number[], value: number): number[] {
  for (let i = 0; i < scores.length; i++) scores[i] = value;
  return scores;
}
