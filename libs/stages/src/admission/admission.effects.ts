import type { OutcomeReason } from '@sluice/contracts';
import type { HandBack } from '../hand-back.js';
import type { AdmissionDecision } from '@sluice/policies';

/**
 * What the admission core does to the world, and all it does: a driver implements it (the
 * service on the bus, the twin on its agenda). `carried` is the driver's own context for the
 * request (a span, a trace context), passed back untouched.
 */
export interface AdmissionEffects<R, C> {
  /** The policy's decision, with the inputs that drove it (a span's attributes, a metric's labels). */
  decided(request: R, carried: C, policy: string, decision: AdmissionDecision): void;
  /** Admitted: hand it to flow control. A refused handoff comes back as `handoffRefused`. */
  handOn(request: R, carried: C): void;
  /** Ends the request here with a reason: an error frame to the gateway that owns it. */
  reject(request: R, carried: C, reason: OutcomeReason, message: string): void;
  /** Gives the request back to its gateway, which re-submits it (the next stage is unavailable). */
  handBack(request: R, carried: C, handBack: HandBack): void;
  /** Instances silent past the heartbeat timeout left admission's view. */
  instancesLost(instanceIds: readonly string[]): void;
}
