import type { Claim, Experiment } from './experiment-file.js';

/** A claim judged on one set of runs: the arm's figure, what it was compared with, and whether it held. */
export interface JudgedClaim {
  readonly claim: Claim;
  /** The arm's figure (null: the report has no such figure, e.g. no critical request completed). */
  readonly left: number | null;
  /** The figure it was held against: ratio × the other arm's, or the claim's value. */
  readonly right: number | null;
  readonly holds: boolean;
}

export type Verdict = 'confirmed' | 'refuted' | 'partly confirmed';

/** Reads `a.b.c` out of a report summary; anything but a finite number is null. */
export function figureAt(summary: unknown, path: string): number | null {
  let at: unknown = summary;
  for (const key of path.split('.')) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, key)) return null;
    at = (at as Record<string, unknown>)[key];
  }
  return typeof at === 'number' && Number.isFinite(at) ? at : null;
}

/**
 * Judges each claim on the arms' summaries. A claim whose figure is missing does not hold: an
 * experiment that measured nothing must not read as confirmed.
 */
export function judge(experiment: Experiment, summaries: ReadonlyMap<string, unknown>): { readonly verdict: Verdict; readonly claims: readonly JudgedClaim[] } {
  const claims = experiment.claims.map((claim): JudgedClaim => {
    const left = figureAt(summaries.get(claim.arm), claim.metric);
    const base = claim.vs === undefined ? (claim.value ?? null) : figureAt(summaries.get(claim.vs), claim.metric);
    const right = base === null ? null : claim.vs === undefined ? base : base * (claim.ratio ?? 1);
    return { claim, left, right, holds: left !== null && right !== null && holds(claim, left, right) };
  });
  const held = claims.filter((c) => c.holds).length;
  return { verdict: held === claims.length ? 'confirmed' : held === 0 ? 'refuted' : 'partly confirmed', claims };
}

function holds(claim: Claim, left: number, right: number): boolean {
  switch (claim.op) {
    case '>':
      return left > right;
    case '>=':
      return left >= right;
    case '<':
      return left < right;
    case '<=':
      return left <= right;
    case 'within':
      return Math.abs(left - right) <= claim.tolerance! * Math.abs(right);
  }
}
