import type { KvEvent, LifecycleEvent, LoadSnapshot, Micros } from '@sluice/contracts';
import { ClusterState } from '../cluster-state.js';
import type { ClusterView } from '../cluster-view.js';
import { PrefixIndex } from '../prefix-index/prefix-index.js';

/**
 * What admission knows of the cluster: instances from lifecycle events, their load snapshots, and
 * a prefix index fed by their KV events (blocks stored / removed), the same PrefixIndex the
 * router keeps from its own decisions. Times are passed in, in µs (wall clock, or the twin's virtual time).
 */
export class AdmissionCluster {
  private readonly state: ClusterState;
  /** Absent when the caller said its policy never reads one (`keepPrefixIndex: false`). */
  private readonly prefix: PrefixIndex | undefined;

  constructor(heartbeatTimeoutUs: Micros, options: { readonly keepPrefixIndex?: boolean } = {}) {
    this.state = new ClusterState(heartbeatTimeoutUs);
    this.prefix = (options.keepPrefixIndex ?? true) ? new PrefixIndex() : undefined;
  }

  /** Whether KV events are worth sending here. */
  get keepsPrefixIndex(): boolean {
    return this.prefix !== undefined;
  }

  onLifecycle(event: LifecycleEvent): void {
    this.state.onLifecycle(event);
    if (event.type === 'deregister') this.prefix?.dropInstance(event.instanceId);
  }

  onSnapshot(snapshot: LoadSnapshot): void {
    this.state.onSnapshot(snapshot);
  }

  /**
   * Only an instance this stage knows: the index is dropped per instance when it leaves, and an
   * instance never registered never leaves, so its blocks (a forged event's) would stay.
   */
  onKv(event: KvEvent): void {
    if (!this.prefix || !this.state.knows(event.instanceId)) return;
    // Cleared first (a restarted instance's cache is empty), then removals: a block evicted and re-stored in one batch is present afterwards.
    if (event.cleared) this.prefix.dropInstance(event.instanceId);
    this.prefix.remove(event.instanceId, event.removed);
    this.prefix.record(event.instanceId, event.stored);
  }

  /** Forgets instances silent past the heartbeat timeout; returns their ids. */
  expire(nowUs: Micros): string[] {
    const lost = this.state.expire(nowUs).map((l) => l.instanceId);
    for (const id of lost) this.prefix?.dropInstance(id);
    return lost;
  }

  /** Every instance counts as heard now (the caller's bus connection was down: see ClusterState.touchAll). */
  touchAll(nowUs: Micros): void {
    this.state.touchAll(nowUs);
  }

  view(nowUs: Micros): ClusterView {
    return this.state.view(nowUs, this.prefix);
  }

  size(): number {
    return this.state.size();
  }
}
