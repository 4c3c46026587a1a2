import type { Micros, OutcomeReason } from '@sluice/contracts';
import type { ClusterView, PolicyRequest } from '../cluster-view.js';

/** The inputs that drove a decision; they become span attributes. */
export type DecisionInputs = Record<string, string | number | boolean>;

export type AdmissionDecision =
  | { readonly admit: true; readonly inputs: DecisionInputs }
  | {
      readonly admit: false;
      readonly reason: OutcomeReason;
      readonly message: string;
      readonly inputs: DecisionInputs;
      /** When the request would pass if sent again, in ms, for a policy that can tell (the token bucket's refill time). */
      readonly retryAfterMs?: number;
    };

/** The first gate. `nowUs` is injected so refill and budgets are testable without sleeping. */
export interface AdmissionPolicy {
  readonly name: string;
  /**
   * Whether `decide` reads `cluster.prefix`. A caller whose policy cannot change (the twin) need
   * not keep a prefix index for one that does not; the admission service keeps it always, since
   * its policy can be swapped at run time.
   */
  readonly readsPrefix?: boolean;
  /**
   * `replicas`: the admission processes sharing the arrivals (this one included, at least 1). A
   * policy with a budget (the token bucket) holds its share of it, so N replicas together admit
   * what one would (docs/scaling.md); the others ignore it.
   */
  decide(request: PolicyRequest, cluster: ClusterView, nowUs: Micros, replicas?: number): AdmissionDecision;
}
