import type { OutcomeReason } from '@sluice/contracts';
import type { HandBack } from '../hand-back.js';
import type { ClusterView, RoutingDecision } from '@sluice/policies';
import type { PdPlacement } from './pd-pick.js';

/** Of the request's model's instances, how many were busy (left out of the candidates). */
export interface BusyCount {
  readonly busy: number;
  readonly total: number;
}

/** Where a disaggregated request's prompt is prefilled (docs/behaviour.md §1): the decision span's P/D attributes. */
export interface PdPlacementInfo {
  readonly placement: PdPlacement;
  /** The prefill instance, when the placement is `remote`. */
  readonly prefillInstanceId?: string;
  /** Prompt tokens the decode instance lacks (what the decider read). */
  readonly nonCachedTokens: number;
}

/**
 * What the routing core does to the world. `carried` is the driver's own context for the request
 * (a span), passed back untouched.
 */
export interface RoutingEffects<R, C> {
  /**
   * The policy's choice (null: nothing could take it) and the view it chose from (a span's
   * candidates). With busy thresholds set: how many of the model's instances were busy (left out).
   * Read both before returning: the next decision renews the arrays they are built from.
   */
  decided(request: R, carried: C, policy: string, decision: RoutingDecision | null, view: ClusterView, busy?: BusyCount, pd?: PdPlacementInfo): void;
  /**
   * Hand it to the chosen instance; disaggregated, with the instance that prefills its prompt
   * first (`prefillInstanceId`). A refused handoff comes back as `handoffRefused`.
   */
  handOn(request: R, carried: C, instanceId: string, prefillInstanceId?: string): void;
  /** Ends the request here with a reason: an error frame to its gateway. */
  reject(request: R, carried: C, reason: OutcomeReason, message: string): void;
  /**
   * Gives the request back to its gateway to be routed again a little later (a router that has
   * just started and has not heard its instances yet). A driver without it ends the request instead.
   */
  handBack?(request: R, carried: C, handBack: HandBack): void;
  /** An instance registered. */
  instanceJoined(instanceId: string, workerId: string): void;
  /**
   * An instance left routing (deregistered, or silent past the heartbeat timeout) holding these
   * requests: each one's gateway gets a `migrate` frame and decides what becomes of it.
   */
  instanceLost(instanceId: string, held: readonly R[], why: 'deregistered' | 'silent'): void;
}
