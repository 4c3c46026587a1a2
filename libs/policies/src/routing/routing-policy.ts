import type { Micros } from '@sluice/contracts';
import type { ClusterView, InstanceView, PolicyRequest } from '../cluster-view.js';
import type { Factory } from '../registry.js';

/** One candidate as the policy ranked it, for the decision's span and for counterfactual regret. */
export interface RankedCandidate {
  readonly instanceId: string;
  /** The policy's score: the weighted sum for `weighted`, −effective load for the others. Higher is better. */
  readonly score: number;
  /** queueDepth + batchSize + inFlight, as the view had them at the decision. */
  readonly effectiveLoad: number;
  /** Per-scorer scores, each in [0, 1], before weighting (`weighted` only; scorers of weight 0 are not run). */
  readonly scores?: Readonly<Record<string, number>>;
}

export interface RoutingDecision {
  readonly instance: InstanceView;
  /**
   * Counterfactual regret (docs/behaviour.md §4): max(0, best score − the chosen instance's score),
   * in the policy's own score unit. 0 whenever the policy picks a best-ranked instance.
   */
  readonly regret: number;
  /**
   * Every candidate, best first (ties: the chosen one first, then view order). The built-in
   * policies build it on first read (a sort and an object per candidate), so a service that
   * records no span for the decision does not pay for it. Read it (or `top`) before the policy's
   * next `route()`: a policy may reuse its score arrays then (`weighted` does), and a ranking
   * first read afterwards throws an error saying so rather than give another decision's.
   */
  readonly ranked: readonly RankedCandidate[];
  /**
   * The first `k` of `ranked`, without ranking the rest: what a router puts on the decision's
   * span (top-k counterfactuals) at O(n·k) instead of a full sort.
   */
  top(k: number): readonly RankedCandidate[];
}

/**
 * Picks the instance for one request. Returns null when no instance can take it ("nothing
 * eligible" is a normal answer, not an error). A policy instance belongs to one router.
 */
export interface RoutingPolicy {
  readonly name: string;
  route(request: PolicyRequest, cluster: ClusterView, nowUs: Micros): RoutingDecision | null;
}

/**
 * What a routing policy factory is given besides its parameters. `random` is the seeded source
 * of every tie-break (pure code never calls Math.random): the service seeds it, e.g. from its
 * instance id with `seededRandom(seedOf(id))`, so a run is reproducible.
 */
export interface RoutingPolicyDeps {
  readonly random: () => number;
  /**
   * How a tie among `ties` best candidates is broken: the index of the winner among them, in view
   * order, in [0, ties). Absent: `Math.floor(random() · ties)`. BLIS parity mode passes Go's
   * `rng.Intn` (blisTieBreak), so decisions match BLIS's bit for bit.
   */
  readonly tieBreak?: TieBreak;
  /**
   * `blis`: BLIS parity mode (docs/blis-mode.md): a policy follows BLIS's blackbox commit where its
   * rules differ from the default (weighted: the queue-depth scorer reads the queue alone).
   * Absent: the default rules.
   */
  readonly compat?: 'blis';
}

/** Picks one of `ties` tied candidates: an index in [0, ties). */
export type TieBreak = (ties: number) => number;

/** A routing plugin's factory: raw params (parsed with the policy's own schema) and its deps. */
export type RoutingPolicyFactory = Factory<RoutingPolicy, unknown, RoutingPolicyDeps>;
