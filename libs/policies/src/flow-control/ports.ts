import type { InstanceView } from '../cluster-view.js';
import type { FlowKey } from './flow-key.js';
import type { QueuedRequest } from './queued-request.js';

/**
 * The flow-control plugin interfaces (as the Endpoint Picker's flow control defines its ports).
 * The queues and the dispatch loop depend on these alone; each plugin sits in its own folder.
 * Plugins are stateless and shared; state a plugin keeps per band comes from its `newState()`.
 */

/** Tier 3 of the pick: which request of one flow goes first. */
export interface OrderingPolicy {
  readonly name: string;
  /**
   * Negative when `a` goes before `b`. A total order: distinct requests never compare equal
   * (ties fall back to enqueue order), so every queue has one well-defined head.
   */
  compare(a: QueuedRequest, b: QueuedRequest): number;
}

/** A flow with queued work, as a fairness policy sees it. */
export interface FlowView {
  readonly key: FlowKey;
  /** Creation order of the flow within its band: stable while the flow has work. */
  readonly ordinal: number;
  readonly length: number;
  readonly bytes: number;
  /** The flow's first request under the band's ordering policy. */
  head(): QueuedRequest;
}

/** Tier 2 of the pick: which flow of a band is served next. */
export interface FairnessPolicy<State = unknown> {
  readonly name: string;
  newState(): State;
  /**
   * The flow to serve next among `flows` (every one has work; in creation order), or null if
   * none is eligible. Must not change `state`: a pick held back by saturation is picked again.
   */
  pick(flows: readonly FlowView[], state: State, ordering: OrderingPolicy): FlowView | null;
  /** The picked flow's head was dispatched: advance the state. */
  dispatched(state: State, flow: FlowView): void;
}

/** What saturation detectors read: the endpoints' reported load and this controller's own books. */
export interface PoolSignals {
  /** Live endpoints, each with its last snapshot and that snapshot's age. */
  readonly endpoints: readonly InstanceView[];
  /** Dispatched by this controller and not yet reported done. */
  readonly inFlightRequests: number;
  /** Their tokens (prompt + max output). */
  readonly inFlightTokens: number;
  /**
   * Requests dispatched in the last `ageUs` µs: the load an endpoint's snapshot of that age cannot
   * show yet. Lets a detector fed by periodic snapshots stop a burst before the next snapshot.
   */
  dispatchedWithin(ageUs: number): number;
  /** Of those, the ones not reported done yet: a request that already finished is no load to hold back for. */
  inFlightDispatchedWithin(ageUs: number): number;
}

/** Gates dispatch: 1.0 or more means saturated, and the head of the queue waits. */
export interface SaturationDetector {
  readonly name: string;
  saturation(signals: PoolSignals): number;
}

/** Saturated means ≥ 1.0 (docs/behaviour.md §3). */
export function isSaturated(saturation: number): boolean {
  return saturation >= 1;
}

/**
 * A detector's reading with floating-point noise at the threshold removed. A load exactly at
 * capacity can compute a hair below 1 (110 in flight over 100 · (1 + 0.1) gives 0.9999999999999999;
 * queue depths 6, 7, 2 over a threshold of 5 average to 0.9999999999999999), which would let one
 * request past the limit. A reading within 1e-9 below 1 is 1; every other reading is unchanged.
 */
export function snapSaturation(reading: number): number {
  return reading < 1 && reading > 1 - 1e-9 ? 1 : reading;
}
