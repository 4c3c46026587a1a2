import type { ClusterView, InstanceView, PolicyRequest } from '../../cluster-view.js';

/**
 * One signal of the `weighted` routing policy (docs/behaviour.md §4, after the llm-d Endpoint
 * Picker's scorers): a score per candidate, higher = better, each in [0, 1]. Batch form, one
 * call for all candidates, so a scorer can normalise across them (queue-depth's min-max).
 */
export interface Scorer {
  readonly name: string;
  /** One score per candidate, in the candidates' order: a new array, which the caller may keep and change. */
  score(request: PolicyRequest, candidates: readonly InstanceView[], cluster: ClusterView): number[];
}

/** x clamped to [0, 1]; NaN reads 0. */
export function clampScore(x: number): number {
  return x > 0 ? (x < 1 ? x : 1) : 0;
}
