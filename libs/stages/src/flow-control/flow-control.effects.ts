import type { HandBack } from '../hand-back.js';
import type { FlowQueueBand, OutcomeReason, Micros } from '@sluice/contracts';
import type { CapacityLimit, DispatchCycleResult, FlowKey } from '@sluice/policies';

/** What became of a request on arrival at flow control (the enqueue span's outcome). */
export type FlowArrival =
  | { readonly outcome: 'enqueued'; readonly queueSize: number }
  | { readonly outcome: 'passed_through' | 'pool_saturated'; readonly saturation: number }
  | { readonly outcome: 'flow_capacity'; readonly exceeded: CapacityLimit }
  /** A new flow while `maxFlows` flows, each with queued requests, are tracked. */
  | { readonly outcome: 'too_many_flows'; readonly maxFlows: number }
  | { readonly outcome: 'shutdown' };

/** How a queued request left the queue other than by dispatch: the reason its gateway is told. */
export type FlowEviction = Extract<OutcomeReason, 'ttl_expired' | 'client_disconnected' | 'timeout' | 'shutdown' | 'cancelled'>;

/** A release to the router: the detector's reading that let it go, and since when it waited. */
export interface FlowRelease {
  readonly saturation: number;
  /** When it entered the queue (its arrival at flow control, in pass-through mode). */
  readonly enqueuedAtUs: Micros;
}

/**
 * What the flow-control core does to the world. `carried` is the driver's own context for the
 * request (a trace context), passed back untouched.
 */
export interface FlowControlEffects<R, C> {
  /** The request arrived and this became of it (a span's outcome, the enqueue metric). */
  arrived(request: R, carried: C, arrival: FlowArrival): void;
  /** Released: hand it to the router. A refused handoff comes back as `handoffRefused`. */
  handOn(request: R, carried: C, release: FlowRelease): void;
  /** Refused on arrival (never queued): an error frame to its gateway. */
  reject(request: R, carried: C, reason: OutcomeReason, message: string): void;
  /** Dropped after it was queued (TTL, cancel, shutdown): an error frame to its gateway. */
  evict(request: R, carried: C, reason: FlowEviction, message: string, enqueuedAtUs: Micros): void;
  /** Gives the request back to its gateway, which re-submits it (the router is unavailable; shutdown). */
  handBack(request: R, carried: C, handBack: HandBack, enqueuedAtUs: Micros | undefined): void;
  /** A dispatch cycle is about to run / has run (its duration is a metric of the service's). */
  cycleStarted(): void;
  cycleFinished(result: DispatchCycleResult): void;
  /**
   * The queue as it stands at `atUs`, by model and priority band (bands with nothing queued left
   * out), every queue-report interval: the driver publishes it for admission.
   */
  queueReported(atUs: Micros, bands: readonly FlowQueueBand[]): void;
  /** These flows are forgotten (idle past `flowGCTimeout`, or making room under `maxFlows`): their per-flow state goes too. */
  flowsForgotten(flows: readonly FlowKey[]): void;
}
