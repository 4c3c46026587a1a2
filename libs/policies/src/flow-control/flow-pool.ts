import type { LifecycleEvent, LoadSnapshot, Micros } from '@sluice/contracts';
import { ClusterState } from '../cluster-state.js';
import { InFlightLedger } from './in-flight-ledger.js';
import type { PoolSignals } from './ports.js';

/**
 * What the saturation detector reads: the pool's endpoints from lifecycle events and load
 * snapshots, and this controller's own books of what it dispatched and has not yet seen done.
 * Times are passed in, in µs (wall clock in the service, virtual time in the twin).
 */
export class FlowPool {
  private readonly cluster: ClusterState;
  private readonly ledger = new InFlightLedger();

  constructor(heartbeatTimeoutUs: Micros) {
    this.cluster = new ClusterState(heartbeatTimeoutUs);
  }

  onLifecycle(event: LifecycleEvent): void {
    this.cluster.onLifecycle(event);
  }

  onSnapshot(snapshot: LoadSnapshot): void {
    this.cluster.onSnapshot(snapshot);
  }

  dispatched(requestId: string, tokens: number, nowUs: Micros, deadlineUs: Micros): void {
    this.ledger.dispatched(requestId, tokens, nowUs, deadlineUs);
  }

  /** The request left the pool; false if this controller did not dispatch it. */
  done(requestId: string): boolean {
    return this.ledger.done(requestId);
  }

  /** Forgets silent instances and requests past their deadline. */
  expire(nowUs: Micros): void {
    this.cluster.expire(nowUs);
    this.ledger.expire(nowUs);
  }

  /** Every instance counts as heard now (the caller's bus connection was down: see ClusterState.touchAll). */
  touchAll(nowUs: Micros): void {
    this.cluster.touchAll(nowUs);
  }

  get inFlight(): number {
    return this.ledger.requests;
  }

  /**
   * What the detector reads at `nowUs`. The endpoints are a view taken now; the in-flight counts
   * are live, so one dispatch cycle's readings see every request it has released so far (the
   * gate of runDispatchCycle depends on it). Read them within that cycle: the next view reuses
   * the endpoints' array (ClusterState.view), and no view is taken during one.
   */
  signals(nowUs: Micros): PoolSignals {
    return new LiveSignals(this.cluster.view(nowUs).instances, this.ledger, nowUs);
  }
}

/**
 * A class, not an object literal with getters and a closure: the dispatch cycle takes signals
 * whenever work arrives or capacity frees, and a literal cost two accessor pairs, a closure and
 * its context each time.
 */
class LiveSignals implements PoolSignals {
  constructor(
    readonly endpoints: PoolSignals['endpoints'],
    private readonly ledger: InFlightLedger,
    private readonly nowUs: Micros,
  ) {}

  get inFlightRequests(): number {
    return this.ledger.requests;
  }

  get inFlightTokens(): number {
    return this.ledger.tokens;
  }

  dispatchedWithin(ageUs: number): number {
    return this.ledger.dispatchedWithin(this.nowUs, ageUs);
  }

  inFlightDispatchedWithin(ageUs: number): number {
    return this.ledger.inFlightDispatchedWithin(this.nowUs, ageUs);
  }
}
