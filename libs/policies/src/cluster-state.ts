import { heardAt, micros, type InstanceIdentity, type LifecycleEvent, type LoadSnapshot, type Micros } from '@sluice/contracts';
import type { ClusterView, InstanceView, PrefixLookup } from './cluster-view.js';

interface Entry {
  identity: InstanceIdentity;
  lastSeenUs: Micros;
  /** The snapshot policies see. */
  snapshot: LoadSnapshot | undefined;
  /** The newest snapshot received, not yet made visible (snapshots: 'on-refresh'). */
  latest: LoadSnapshot | undefined;
  /** Request ids dispatched here and not yet reported done. */
  inFlight: Set<string>;
  draining: boolean;
  /** The instance's view as last built; undefined once anything it shows changed. */
  view: KeptInstanceView | undefined;
}

/** An instance view as ClusterState keeps it: its snapshot age is written at every view. */
type KeptInstanceView = { -readonly [K in keyof InstanceView]: InstanceView[K] };

/**
 * One instance's view. Everything but the snapshot's age is fixed when it is built; `view()`
 * writes the age each time it hands the object out, so it can serve every later view until the
 * instance changes. A plain object with the fields in one order, so the policies' reads stay
 * monomorphic (an accessor for the age made every scorer's pass half as slow again).
 */
function instanceView(entry: Entry): KeptInstanceView {
  const s = entry.snapshot;
  const id = entry.identity;
  // Fields written out, not spread: spreading the identity was a fifth of the twin's time (a
  // generic clone per instance per call).
  return {
    instanceId: id.instanceId,
    workerId: id.workerId,
    rank: id.rank,
    model: id.model,
    totalKvBlocks: id.totalKvBlocks,
    inFlight: entry.inFlight.size,
    // Snapshots read zero until the first one arrives (docs/behaviour.md §4).
    queueDepth: s?.queueDepth ?? 0,
    batchSize: s?.batchSize ?? 0,
    kvUtilization: s?.kvUtilization ?? 0,
    activePrefillTokens: s?.activePrefillTokens ?? 0,
    activeDecodeBlocks: s?.activeDecodeBlocks ?? 0,
    snapshotAgeUs: micros(Number.POSITIVE_INFINITY),
  };
}

/**
 * How often a stage should call `expire`: a third of the heartbeat timeout (at least 50 ms), so
 * a silent instance leaves the view at most a third of the timeout late.
 */
export function expirySweepIntervalUs(heartbeatTimeoutUs: Micros): Micros {
  return micros(Math.max(50_000, Math.floor(heartbeatTimeoutUs / 3)));
}

export interface ClusterStateOptions {
  /**
   * When instance-reported signals become visible to policies (docs/behaviour.md §4, signal freshness):
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

/**
 * The cluster as a control-plane stage knows it: instances from lifecycle events, their last
 * load snapshots, and the in-flight requests this stage dispatched (synchronous, owned here).
 * Pure: every time is passed in, in µs (the events carry their senders' epoch µs).
 */
export class ClusterState {
  private readonly instances = new Map<string, Entry>();
  private readonly immediate: boolean;
  /**
   * What `view()` lists, kept between views: the live, non-draining entries in registration order
   * and their views at the same indexes. Undefined once an instance joins, leaves or starts or stops
   * draining; `view()` then lists them anew.
   */
  private shown: { readonly entries: Entry[]; readonly views: KeptInstanceView[] } | undefined;

  constructor(
    private readonly heartbeatTimeoutUs: Micros,
    options: ClusterStateOptions = {},
  ) {
    this.immediate = (options.snapshots ?? 'immediate') === 'immediate';
  }

  /** Applies a lifecycle event; a deregistered instance's in-flight request ids are returned. */
  onLifecycle(event: LifecycleEvent): string[] {
    if (event.type === 'deregister') {
      const held = [...(this.instances.get(event.instanceId)?.inFlight ?? [])];
      if (this.instances.delete(event.instanceId)) this.shown = undefined;
      return held;
    }
    const known = this.instances.get(event.instanceId);
    if (known) {
      known.lastSeenUs = event.atUs;
      known.identity = identityOf(event);
      known.view = undefined;
      // Draining sticks (its heartbeats go on while it finishes its work) until it registers again.
      const draining = event.type === 'drain' || (known.draining && event.type !== 'register');
      if (draining !== known.draining) this.shown = undefined;
      known.draining = draining;
      return [];
    }
    this.shown = undefined;
    this.instances.set(event.instanceId, {
      identity: identityOf(event),
      lastSeenUs: event.atUs,
      snapshot: undefined,
      latest: undefined,
      inFlight: new Set(),
      draining: event.type === 'drain',
      view: undefined,
    });
    return [];
  }

  onSnapshot(snapshot: LoadSnapshot): void {
    const entry = this.instances.get(snapshot.instanceId);
    if (!entry) return;
    entry.latest = snapshot;
    if (this.immediate) {
      entry.snapshot = snapshot;
      entry.view = undefined;
    }
    entry.lastSeenUs = micros(Math.max(entry.lastSeenUs, snapshot.atUs));
  }

  /** Makes every instance's newest snapshot the one policies see (snapshots: 'on-refresh'). */
  refresh(): void {
    for (const entry of this.instances.values()) {
      if (!entry.latest || entry.snapshot === entry.latest) continue;
      entry.snapshot = entry.latest;
      entry.view = undefined;
    }
  }

  dispatched(instanceId: string, requestId: string): void {
    const entry = this.instances.get(instanceId);
    if (!entry || entry.inFlight.has(requestId)) return;
    entry.inFlight.add(requestId);
    entry.view = undefined;
  }

  /** The instance reported the request done (completed, dropped or failed). */
  done(instanceId: string, requestId: string): void {
    const entry = this.instances.get(instanceId);
    if (entry?.inFlight.delete(requestId)) entry.view = undefined;
  }

  /**
   * Removes instances silent for longer than the heartbeat timeout; returns what they held.
   *
   * An instance last heard at a time still ahead of `nowUs` (its sender's clock runs ahead, or the
   * time is forged) counts as heard now: a sender's clock cannot keep an instance alive past one
   * timeout of silence. Left alone, one event dated in the year 3000 kept a made-up instance
   * registered for good (the bus fuzz found it).
   */
  expire(nowUs: Micros): { instanceId: string; inFlight: string[] }[] {
    const lost: { instanceId: string; inFlight: string[] }[] = [];
    for (const [id, entry] of this.instances) {
      entry.lastSeenUs = heardAt(entry.lastSeenUs, nowUs);
      if (nowUs - entry.lastSeenUs > this.heartbeatTimeoutUs) {
        lost.push({ instanceId: id, inFlight: [...entry.inFlight] });
        this.instances.delete(id);
      }
    }
    if (lost.length > 0) this.shown = undefined;
    return lost;
  }

  /**
   * Every instance counts as heard now: the caller's own bus connection was down, so their silence
   * was the bus's, and expiring them would lose every request they hold for nothing.
   */
  touchAll(nowUs: Micros): void {
    for (const entry of this.instances.values()) entry.lastSeenUs = micros(Math.max(entry.lastSeenUs, nowUs));
  }

  size(): number {
    return this.instances.size;
  }

  /** Whether the instance is known (registered, not yet deregistered or expired). */
  knows(instanceId: string): boolean {
    return this.instances.has(instanceId);
  }

  /** How many instances serving `model` are known, and how many of them are draining (for messages). */
  census(model: string): { readonly known: number; readonly draining: number } {
    let known = 0;
    let draining = 0;
    for (const entry of this.instances.values()) {
      if (entry.identity.model !== model) continue;
      known += 1;
      if (entry.draining) draining += 1;
    }
    return { known, draining };
  }

  /** Whether instances serving `model` are known and every one of them is draining (a rolling restart under way). */
  onlyDraining(model: string): boolean {
    let known = false;
    for (const entry of this.instances.values()) {
      if (entry.identity.model !== model) continue;
      if (!entry.draining) return false;
      known = true;
    }
    return known;
  }

  /**
   * The view policies decide on: live, non-draining instances, in registration order. `prefix`
   * is the caller's prefix index (the router's, or admission's copy), passed through as is.
   *
   * Each instance's view object is kept until something it shows changes (a snapshot made
   * visible, a dispatch or a done, a lifecycle event), and only its snapshot age is written anew:
   * a router builds a view per request, and building 10 000 objects each time took as long as the
   * decision itself (docs/benchmarks.md, routing at 10 000 instances). The `instances` array is
   * kept too, until an instance joins, leaves, or starts or stops draining; a changed instance's
   * new view takes its old one's place in it. A fresh array per view was 10 000 pushes and
   * ~100 KB of garbage a decision, and the young-generation collections it brought were most of
   * the slowest hundredth of decisions. So the array and the ages in it are right until the next
   * `view()`: every reader reads them during the decision they were built for (copy to keep them).
   */
  view(nowUs: Micros, prefix?: PrefixLookup, kvCache?: PrefixLookup): ClusterView {
    const { entries, views } = (this.shown ??= this.listShown());
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      let view = entry.view;
      if (view === undefined) {
        view = entry.view = instanceView(entry);
        views[i] = view;
      }
      const snapshot = entry.snapshot;
      if (snapshot !== undefined && heardAt(snapshot.atUs, nowUs) !== snapshot.atUs) this.datedNow(entry, snapshot, nowUs);
      const atUs = entry.snapshot?.atUs;
      view.snapshotAgeUs = micros(atUs === undefined ? Number.POSITIVE_INFINITY : nowUs - atUs);
    }
    const view: ClusterView = prefix ? { instances: views, prefix } : { instances: views };
    return kvCache ? { ...view, kvCache } : view;
  }

  /**
   * A snapshot dated after `nowUs` counts as taken now, and ages from here: its sender's clock
   * cannot keep it fresh. A saturation detector reads a fresh report of a long queue as a full
   * endpoint, so one forged snapshot dated in the future held a whole pool saturated for good.
   */
  private datedNow(entry: Entry, snapshot: LoadSnapshot, nowUs: Micros): void {
    const now = { ...snapshot, atUs: nowUs };
    // The newest one too when it is the same report, or a refresh would bring the future date back.
    if (entry.latest === snapshot) entry.latest = now;
    entry.snapshot = now;
  }

  /** The live, non-draining entries in registration order, each with its view (built if it has none). */
  private listShown(): { entries: Entry[]; views: KeptInstanceView[] } {
    const entries: Entry[] = [];
    const views: KeptInstanceView[] = [];
    for (const entry of this.instances.values()) {
      if (entry.draining) continue;
      entries.push(entry);
      views.push((entry.view ??= instanceView(entry)));
    }
    return { entries, views };
  }
}
