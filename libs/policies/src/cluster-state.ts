import type { InstanceIdentity, LifecycleEvent, LoadSnapshot } from '@sluice/contracts';
import type { ClusterView, InstanceView, PrefixLookup } from './cluster-view.js';

interface Entry {
  identity: InstanceIdentity;
  lastSeenMs: number;
  /** The snapshot policies see. */
  snapshot: LoadSnapshot | undefined;
  /** The newest snapshot received, not yet made visible (snapshots: 'on-refresh'). */
  latest: LoadSnapshot | undefined;
  /** Request ids dispatched here and not yet reported done. */
  inFlight: Set<string>;
  draining: boolean;
}

/**
 * The cluster as a control-plane service knows it: instances from lifecycle events, their last
 * load snapshots, and the in-flight requests this service dispatched (synchronous, owned here).
 * Pure: the caller passes the wall-clock time of every event.
 */
/**
 * How often a service should call `expire`: a third of the heartbeat timeout (at least 50 ms), so
 * a silent instance leaves the view at most a third of the timeout late.
 */
export function expirySweepIntervalMs(heartbeatTimeoutMs: number): number {
  return Math.max(50, Math.floor(heartbeatTimeoutMs / 3));
}

export interface ClusterStateOptions {
  /**
   * When instance-reported signals become visible to policies (BEHAVIOUR.md §4, signal freshness):
   * `immediate` (default), each snapshot as it arrives; `on-refresh`, only at `refresh()`, which the
   * caller runs every snapshot-refresh interval, as BLIS models a router that polls its endpoints.
   */
  readonly snapshots?: 'immediate' | 'on-refresh';
}

/** An instance's identity alone: what a lifecycle event says of it, without the event's own fields. */
function identityOf(event: LifecycleEvent): InstanceIdentity {
  const { instanceId, workerId, rank, model, totalKvBlocks } = event;
  return { instanceId, workerId, rank, model, totalKvBlocks };
}

export class ClusterState {
  private readonly instances = new Map<string, Entry>();
  private readonly immediate: boolean;

  constructor(
    private readonly heartbeatTimeoutMs: number,
    options: ClusterStateOptions = {},
  ) {
    this.immediate = (options.snapshots ?? 'immediate') === 'immediate';
  }

  /** Applies a lifecycle event; a deregistered instance's in-flight request ids are returned. */
  onLifecycle(event: LifecycleEvent): string[] {
    if (event.type === 'deregister') {
      const held = [...(this.instances.get(event.instanceId)?.inFlight ?? [])];
      this.instances.delete(event.instanceId);
      return held;
    }
    const known = this.instances.get(event.instanceId);
    if (known) {
      known.lastSeenMs = event.atMs;
      known.identity = identityOf(event);
      known.draining = event.type === 'drain';
      return [];
    }
    this.instances.set(event.instanceId, {
      identity: identityOf(event),
      lastSeenMs: event.atMs,
      snapshot: undefined,
      latest: undefined,
      inFlight: new Set(),
      draining: event.type === 'drain',
    });
    return [];
  }

  onSnapshot(snapshot: LoadSnapshot): void {
    const entry = this.instances.get(snapshot.instanceId);
    if (!entry) return;
    entry.latest = snapshot;
    if (this.immediate) entry.snapshot = snapshot;
    entry.lastSeenMs = Math.max(entry.lastSeenMs, snapshot.atMs);
  }

  /** Makes every instance's newest snapshot the one policies see (snapshots: 'on-refresh'). */
  refresh(): void {
    for (const entry of this.instances.values()) if (entry.latest) entry.snapshot = entry.latest;
  }

  dispatched(instanceId: string, requestId: string): void {
    this.instances.get(instanceId)?.inFlight.add(requestId);
  }

  /** The instance reported the request done (completed, dropped or failed). */
  done(instanceId: string, requestId: string): void {
    this.instances.get(instanceId)?.inFlight.delete(requestId);
  }

  /** Removes instances silent for longer than the heartbeat timeout; returns what they held. */
  expire(nowMs: number): { instanceId: string; inFlight: string[] }[] {
    const lost: { instanceId: string; inFlight: string[] }[] = [];
    for (const [id, entry] of this.instances) {
      if (nowMs - entry.lastSeenMs > this.heartbeatTimeoutMs) {
        lost.push({ instanceId: id, inFlight: [...entry.inFlight] });
        this.instances.delete(id);
      }
    }
    return lost;
  }

  size(): number {
    return this.instances.size;
  }

  /**
   * The view policies decide on: live, non-draining instances, in registration order. `prefix`
   * is the caller's prefix index (the router's, or admission's copy), passed through as is.
   */
  view(nowMs: number, prefix?: PrefixLookup): ClusterView {
    const instances: InstanceView[] = [];
    for (const entry of this.instances.values()) {
      if (entry.draining) continue;
      const s = entry.snapshot;
      const id = entry.identity;
      // Fields written out, not spread: a view is built for every decision, and spreading the
      // identity was a fifth of the twin's time (a generic clone per instance per call).
      instances.push({
        instanceId: id.instanceId,
        workerId: id.workerId,
        rank: id.rank,
        model: id.model,
        totalKvBlocks: id.totalKvBlocks,
        inFlight: entry.inFlight.size,
        // Snapshots read zero until the first one arrives (BEHAVIOUR.md §4).
        queueDepth: s?.queueDepth ?? 0,
        batchSize: s?.batchSize ?? 0,
        kvUtilization: s?.kvUtilization ?? 0,
        activePrefillTokens: s?.activePrefillTokens ?? 0,
        activeDecodeBlocks: s?.activeDecodeBlocks ?? 0,
        snapshotAgeMs: s ? nowMs - s.atMs : Number.POSITIVE_INFINITY,
      });
    }
    return prefix ? { instances, prefix } : { instances };
  }
}
