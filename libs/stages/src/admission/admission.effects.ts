import type { BusyThresholdsAnnouncement, OutcomeReason } from '@sluice/contracts';
import type { HandBack } from '../hand-back.js';
import type { ChainDecision } from '@sluice/policies';

/**
 * What the admission core does to the world, and all it does: a driver implements it (the
 * service on the bus, the twin on its agenda). `carried` is the driver's own context for the
 * request (a span, a trace context), passed back untouched.
 */
export interface AdmissionEffects<R, C> {
  /**
   * The chain's decision: `policy` is the check that decided (the one that rejected, else the
   * last), `decision` its inputs and every check that ran with its own (a span's attributes and
   * events, a metric's labels).
   */
  decided(request: R, carried: C, policy: string, decision: ChainDecision): void;
  /** Admitted: hand it to flow control. A refused handoff comes back as `handoffRefused`. */
  handOn(request: R, carried: C): void;
  /**
   * Ends the request here with a reason: an error frame to the gateway that owns it.
   * `retryAfterMs`: the rejecting policy's estimate of when it would pass (the gateway's `retry-after`).
   */
  reject(request: R, carried: C, reason: OutcomeReason, message: string, retryAfterMs?: number): void;
  /** Gives the request back to its gateway, which re-submits it (the next stage is unavailable). */
  handBack(request: R, carried: C, handBack: HandBack): void;
  /** Instances silent past the heartbeat timeout left admission's view. */
  instancesLost(instanceIds: readonly string[]): void;
  /**
   * The busy thresholds in effect, for every router replica (which routes only among free
   * instances) and every admission replica: at start, on each change, and at every expiry sweep
   * (so a replica that starts later learns them). A driver where they cannot change at run time
   * (the twin: its routers start from the same config) need not carry them.
   */
  announceBusyThresholds?(announcement: BusyThresholdsAnnouncement): void;
}
