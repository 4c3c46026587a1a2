import { z } from 'zod';
import { MicrosSchema } from './time.js';

/**
 * A number a decision reports that JSON may not carry as such: NaN and ±Infinity (a NaN score, an
 * instance with no snapshot yet) are written as null.
 */
const FiniteOrNull = z.number().nullable();

/** The signals a candidate was scored on: the router's view of its instance at the decision. */
export const CandidateSignalsSchema = z.strictObject({
  queueDepth: z.number(),
  batchSize: z.number(),
  inFlight: z.number(),
  kvUtilization: z.number(),
  /** Age of the instance's snapshot, in ms; null before its first one. */
  snapshotAgeMs: FiniteOrNull,
});
export type CandidateSignals = z.infer<typeof CandidateSignalsSchema>;

/** One of a decision's best-ranked candidates (rank = its place in `top`). */
export const TracedCandidateSchema = z.strictObject({
  instanceId: z.string().min(1),
  /** The policy's score (higher is better): the weighted sum, or −effective load. */
  score: FiniteOrNull,
  effectiveLoad: z.number(),
  /** Per-scorer scores before weighting (the weighted policy only). */
  scores: z.record(z.string(), FiniteOrNull).optional(),
  signals: CandidateSignalsSchema,
});
export type TracedCandidate = z.infer<typeof TracedCandidateSchema>;

/**
 * One routing decision, one line of a decision trace (NDJSON): what the live router writes when
 * `router.decisionTrace` names a file, and what `sluice simulate --decision-trace FILE` writes, so
 * the two compare decision by decision (`sluice compare-decisions`). The same facts the router's
 * span carries (docs/behaviour.md §4, "Decision trace").
 */
export const DecisionTraceLineSchema = z.strictObject({
  /** When the router decided: epoch µs live, virtual µs in the twin. */
  atUs: MicrosSchema,
  requestId: z.string().min(1),
  attempt: z.number().int().nonnegative(),
  model: z.string().min(1),
  policy: z.string().min(1),
  /** Candidates the policy chose among (busy ones left out). */
  candidates: z.number().int().nonnegative(),
  /** The chosen (decode) instance; null when nothing could take the request. */
  instance: z.string().min(1).nullable(),
  /** Counterfactual regret, max(0, best score − chosen score); null with no choice. */
  regret: FiniteOrNull,
  /** Disaggregated: where the prompt is prefilled, and the prefill instance when remote. */
  pd: z
    .strictObject({
      placement: z.string().min(1),
      prefillInstance: z.string().min(1).optional(),
      nonCachedTokens: z.number().int().nonnegative(),
    })
    .optional(),
  /** The best-ranked candidates, best first, `router.counterfactualK` of them (ties: the chosen one first). */
  top: z.array(TracedCandidateSchema),
});
export type DecisionTraceLine = z.infer<typeof DecisionTraceLineSchema>;
