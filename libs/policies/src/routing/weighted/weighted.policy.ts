import { z } from 'zod';
import { ScoreLease, argMaxRandomTie, rankedDecision, routingCandidates } from '../decision.js';
import type { RoutingPolicy, RoutingPolicyDeps } from '../routing-policy.js';
import { QUEUE_DEPTH_SCORER } from '../scorers/queue-depth/queue-depth.scorer.js';
import { SCORER_NAMES, createScorerRegistry, type ScorerName } from '../scorers/registry.js';
import { clampScore, scoreArray } from '../scorers/scorer.js';
import { DEFAULT_SCORER_WEIGHTS, ScorerWeightsSchema } from './scorer-weights.js';

export const WEIGHTED = 'weighted';

export const WeightedParamsSchema = z.strictObject({
  /** Per-scorer weights, `"name:w,..."` or `{ name: w }`; default prefix-affinity:3, queue-depth:2, kv-utilization:2. */
  weights: ScorerWeightsSchema.default(DEFAULT_SCORER_WEIGHTS),
});
export type WeightedParams = z.infer<typeof WeightedParamsSchema>;

/** BLIS parity mode's scorer parameters, where BLIS's blackbox commit reads another signal than the default. */
const BLIS_SCORER_PARAMS: Readonly<Partial<Record<ScorerName, unknown>>> = { [QUEUE_DEPTH_SCORER]: { reads: 'queue-depth' } };

/**
 * Weighted scoring (docs/behaviour.md §4, BLIS's weighted routing and the Endpoint Picker's scorer
 * plugins): each scorer with a positive weight scores every candidate in [0, 1]; a candidate's
 * score is Σ score · weight / Σ weights, itself in [0, 1]; the argmax wins, exact ties broken by
 * the seeded random source. Scorers run in SCORER_NAMES order whatever order config lists them
 * in, so the same weights give bit-identical sums. It picks the best-ranked candidate, so its
 * regret is 0 by construction. In BLIS parity mode (`deps.compat`) the queue-depth scorer reads
 * the queue alone, as BLIS's does (BLIS_SCORER_PARAMS).
 */
export function createWeighted(params: unknown, deps: RoutingPolicyDeps): RoutingPolicy {
  const { weights } = WeightedParamsSchema.parse(params ?? {});
  const registry = createScorerRegistry();
  let total = 0;
  for (const name of SCORER_NAMES) total += weights[name] ?? 0;
  const active = SCORER_NAMES.filter((name) => (weights[name] ?? 0) > 0).map((name) => ({
    name,
    scorer: registry.create(name, deps.compat === 'blis' ? (BLIS_SCORER_PARAMS[name] ?? {}) : {}),
    factor: (weights[name] ?? 0) / total,
  }));

  // The score arrays, reused from one decision to the next (grown with the pool): a decision's
  // ranking reads them only until the next route() renews the lease (decision.ts, ScoreLease).
  const lease = new ScoreLease();
  const scores: number[] = [];
  const unweighted = active.map((): number[] => []);
  const perScorer = (i: number) => {
    const record: Record<string, number> = {};
    for (let k = 0; k < active.length; k++) record[active[k]!.name] = unweighted[k]![i]!;
    return record;
  };

  return {
    name: WEIGHTED,
    route(request, cluster) {
      lease.renew();
      const candidates = routingCandidates(request, cluster);
      if (candidates.length === 0) return null;
      const n = candidates.length;
      // Plain arrays, not Float64Arrays: a typed array of 10 000 allocates its buffer outside
      // the heap, which cost more than the whole sum. Each sum starts from +0, as a fresh
      // typed array's would, and adds the scorers in the same order: the same bits.
      scoreArray(n, scores);
      for (let k = 0; k < active.length; k++) {
        const { scorer, factor } = active[k]!;
        const clamped = scorer.score(request, candidates, cluster, unweighted[k]);
        // A scorer that ignored `out` or gave too few or too many scores: its array is taken (ours to change, Scorer's contract).
        if (clamped.length !== n) scoreArray(n, clamped);
        unweighted[k] = clamped;
        for (let i = 0; i < n; i++) {
          const score = clampScore(clamped[i] ?? 0);
          clamped[i] = score;
          scores[i] = (k === 0 ? 0 : scores[i]!) + factor * score;
        }
      }
      return rankedDecision(candidates, scores, argMaxRandomTie(scores, deps.random, deps.tieBreak), perScorer, lease);
    },
  };
}
