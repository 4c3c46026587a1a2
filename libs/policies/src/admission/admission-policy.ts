import type { OutcomeReason } from '@sluice/contracts';
import type { ClusterView, PolicyRequest } from '../cluster-view.js';

/** The inputs that drove a decision; they become span attributes. */
export type DecisionInputs = Record<string, string | number | boolean>;

export type AdmissionDecision =
  | { readonly admit: true; readonly inputs: DecisionInputs }
  | { readonly admit: false; readonly reason: OutcomeReason; readonly message: string; readonly inputs: DecisionInputs };

/** The first gate. `nowUs` is injected so refill and budgets are testable without sleeping. */
export interface AdmissionPolicy {
  readonly name: string;
  decide(request: PolicyRequest, cluster: ClusterView, nowUs: number): AdmissionDecision;
}
