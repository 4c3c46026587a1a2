import { seededRandom } from '@sluice/collections';
import { ALL_WORKERS_BUSY_BODY, BLOCK_SIZE, micros, type BusyThresholdsAnnouncement, type KvEvent, type LifecycleEvent, type LoadSnapshot, type Micros, type RequestDone } from '@sluice/contracts';
import {
  BusyThresholdBook,
  ClusterState,
  KvEventIndex,
  DEFAULT_PREFIX_INDEX_CAPACITY,
  PrefixIndex,
  blisTieBreak,
  expirySweepIntervalUs,
  freeInstances,
  type ClusterView,
  type InstanceView,
  type RoutingPolicy,
  type RoutingPolicyRegistry,
} from '@sluice/policies';
import type { WorkerRole } from '@sluice/engine';
import { copyMayBeTaken, worthHandingBack, type HandoffFailure } from '../hand-back.js';
import { pickPrefillAndDecode } from './pd-pick.js';
import type { StageRequest } from '../stage-request.js';
import { Periodic, type WakeUps } from '../wake-ups.js';
import type { RoutingEffects } from './routing.effects.js';
import type { RoutingSettings } from './routing.settings.js';

export type RoutingWakeUp = 'sweep' | 'refresh';

/**
 * The routing stage (docs/behaviour.md §4): picks an instance for each request with the routing
 * policy, and owns what the policy reads synchronously: in-flight accounting (+1 at dispatch, −1
 * when the instance reports the request done) and the router-side prefix index (the request's
 * blocks recorded on the chosen instance right after each decision). Instance-reported signals
 * become visible every snapshot-refresh interval (at once when it is 0). An instance that
 * deregisters or goes silent leaves routing, and the requests it held are reported lost.
 * With busy thresholds set, only the model's free instances are candidates, and a request whose
 * model has instances but none free ends `all_workers_busy`, as Dynamo's push router does.
 * Pure: the caller passes the time of every call.
 */
export class RoutingStage<R extends StageRequest, C = undefined> {
  private readonly policy: RoutingPolicy;
  private readonly prefillPolicy: RoutingPolicy | undefined;
  private readonly cluster: ClusterState;
  private readonly prefix: PrefixIndex;
  /** What the caches reported holding (their KV events), kept only when the policy reads it. */
  private readonly kvCache: KvEventIndex | undefined;
  /** Requests handed to an instance and not yet done, by id, with the instance: what a lost instance held. */
  private readonly owners = new Map<string, { readonly request: R; readonly instanceId: string }>();
  /** Instances that refused a request (no responder, nack): it is routed again among the others. */
  private readonly refusedBy = new WeakMap<R, Set<string>>();
  /** The stage's bus connection is down: silence proves nothing, so no instance expires. */
  private expirySuspended = false;
  /**
   * Until then an empty pool is taken for one about to be filled, not for an empty cluster: the
   * stage just started and may not have heard the instances yet, or its last instance just left
   * (deregistered or went silent: a restart, or heartbeats late on a loaded machine). See `route`.
   */
  private refillUntilUs: Micros | undefined;
  private readonly sweep: Periodic<RoutingWakeUp>;
  private readonly refresh: Periodic<RoutingWakeUp> | undefined;
  private readonly heartbeatTimeoutUs: Micros;
  /** Dynamo's busy thresholds: configured, then as admission announces them. */
  private readonly busy: BusyThresholdBook;
  /** Disaggregated: each instance's role as it registered (absent: `both`). */
  private readonly roles = new Map<string, WorkerRole>();
  /** Disaggregated: the prefill instance of each request whose prompt is being prefilled remotely, until it reports done. */
  private readonly prefillOwners = new Map<string, string>();
  private readonly roleOf = (instance: InstanceView): WorkerRole => this.roles.get(instance.instanceId) ?? 'both';

  constructor(
    private readonly settings: RoutingSettings,
    registry: RoutingPolicyRegistry,
    private readonly effects: RoutingEffects<R, C>,
    wakeUps: WakeUps<RoutingWakeUp>,
  ) {
    const random = seededRandom(settings.seed);
    // BLIS parity mode: the router's prefix beliefs age as BLIS's do (a prompt's first block is its oldest).
    this.prefix = new PrefixIndex(DEFAULT_PREFIX_INDEX_CAPACITY, settings.compat === 'blis' ? 'prompt' : 'leading-last');
    this.policy = registry.create(settings.policy, settings.params, settings.compat === 'blis' ? { random, tieBreak: blisTieBreak(settings.seed), compat: 'blis' } : { random });
    // The prefill pick's own policy, with its own seeded tie-breaks (see PdPolicies).
    this.prefillPolicy = settings.disaggregation && registry.create(settings.policy, settings.params, { random: seededRandom(settings.seed + 1) });
    const onRefresh = settings.snapshotRefreshIntervalUs > 0;
    this.heartbeatTimeoutUs = settings.heartbeatTimeoutUs;
    this.busy = new BusyThresholdBook(settings.busyThresholds ?? {});
    this.kvCache = settings.kvEvents && new KvEventIndex(settings.kvEvents.capacityPerInstance, settings.kvEvents.refreshUs);
    this.cluster = new ClusterState(settings.heartbeatTimeoutUs, { snapshots: onRefresh ? 'on-refresh' : 'immediate' });
    this.sweep = new Periodic<RoutingWakeUp>('sweep', expirySweepIntervalUs(settings.heartbeatTimeoutUs), wakeUps);
    this.refresh = onRefresh ? new Periodic<RoutingWakeUp>('refresh', settings.snapshotRefreshIntervalUs, wakeUps) : undefined;
  }

  get policyName(): string {
    return this.policy.name;
  }

  /** Makes the snapshots received so far visible, then refreshes them every interval; starts the sweep. */
  start(nowUs: Micros): void {
    // Instances answer a start-up discovery within a heartbeat; one timeout is plenty.
    this.refillUntilUs = micros(nowUs + this.heartbeatTimeoutUs);
    if (this.refresh) {
      this.cluster.refresh();
      this.refresh.start(nowUs);
    }
    this.sweep.start(nowUs);
  }

  stop(): void {
    this.refresh?.stop();
    this.sweep.stop();
  }

  route(request: R, nowUs: Micros, carried: C): void {
    if (this.settings.disaggregation) {
      this.routeDisaggregated(request, nowUs, carried);
      return;
    }
    const all = this.withoutRefusals(request, this.viewAt(nowUs));
    const { view, total, busy } = freeInstances(all, request.model, this.busy.thresholdsFor(request.model));
    if (busy > 0 && busy === total) {
      this.effects.decided(request, carried, this.policy.name, null, view, { busy, total });
      this.effects.reject(request, carried, 'all_workers_busy', ALL_WORKERS_BUSY_BODY.message);
      return;
    }
    const decision = this.policy.route(request, view, nowUs);
    this.effects.decided(request, carried, this.policy.name, decision, view, total > 0 ? { busy, total } : undefined);
    if (!decision) {
      this.noInstance(request, carried, nowUs);
      return;
    }
    const instanceId = decision.instance.instanceId;
    // Synchronous signals, updated before the handoff so the next decision sees them.
    this.cluster.dispatched(instanceId, request.id);
    this.prefix.record(instanceId, request.blockHashes);
    this.owners.set(request.id, { request, instanceId });
    this.effects.handOn(request, carried, instanceId);
  }

  /**
   * Disaggregated prefill/decode (docs/behaviour.md §1): the decode instance first, then, when the
   * decider says so, a prefill instance (`pickPrefillAndDecode`). Both count the request in flight
   * and both record its prompt blocks: the prefill instance caches the prompt it computes.
   */
  private routeDisaggregated(request: R, nowUs: Micros, carried: C): void {
    const view = this.withoutRefusals(request, this.viewAt(nowUs));
    const busy = this.busy.thresholdsFor(request.model);
    const policies = { decode: this.policy, prefill: this.prefillPolicy! };
    const pick = pickPrefillAndDecode(request, view, this.roleOf, policies, { rule: this.settings.disaggregation!, blockSize: BLOCK_SIZE, busy }, nowUs);
    if (typeof pick === 'string') {
      this.effects.decided(request, carried, this.policy.name, null, view);
      if (pick === 'all-busy') this.effects.reject(request, carried, 'all_workers_busy', ALL_WORKERS_BUSY_BODY.message);
      else this.noInstance(request, carried, nowUs);
      return;
    }
    const decodeId = pick.decode.instance.instanceId;
    const prefillId = pick.prefill?.instance.instanceId;
    this.effects.decided(request, carried, this.policy.name, pick.decode, view, undefined, { placement: pick.placement, nonCachedTokens: pick.nonCachedTokens, ...(prefillId !== undefined && { prefillInstanceId: prefillId }) });
    this.cluster.dispatched(decodeId, request.id);
    this.prefix.record(decodeId, request.blockHashes);
    this.owners.set(request.id, { request, instanceId: decodeId });
    if (prefillId !== undefined) {
      this.cluster.dispatched(prefillId, request.id);
      this.prefix.record(prefillId, request.blockHashes);
      this.prefillOwners.set(request.id, prefillId);
    }
    this.effects.handOn(request, carried, decodeId, prefillId);
  }

  /** The policy found no instance: a restart under way (handed back) or no worker at all. */
  private noInstance(request: R, carried: C, nowUs: Micros): void {
    // No instance, before or just after start-up or just after the last one left: a restart, not
    // an empty cluster. (Before `start`, the window is not open yet: a request that comes that
    // early on a busy machine is no proof that no worker exists.)
    const refilling = this.refillUntilUs === undefined || nowUs < this.refillUntilUs;
    if (this.effects.handBack && refilling && this.cluster.size() === 0) {
      this.effects.handBack(request, carried, { resumeAt: 'router', reason: 'next_unavailable', message: 'the router has no instance right now: it has just started, or its last instance has just left' });
      return;
    }
    // Every instance of the model is draining: a restart under way, whose replacements register
    // soon; not an empty cluster either (a request dispatched as the last instance announced its
    // drain ended as no_worker before).
    if (this.effects.handBack && this.cluster.onlyDraining(request.model)) {
      this.effects.handBack(request, carried, { resumeAt: 'router', reason: 'next_unavailable', message: `every instance serving "${request.model}" is draining` });
      return;
    }
    this.effects.reject(request, carried, 'no_worker', this.noWorkerMessage(request));
  }

  /**
   * The instance did not take the request (no responder: it died or is draining; a nack): undo its
   * accounting and route the request again among the instances that have not refused it. When
   * every instance refused, it goes back to its gateway if they were absent or silent, else it ends
   * here as `worker_unreachable`. An instance that did not ack in time may still run the copy when
   * it wakes: that attempt goes to no other instance; it goes back to its gateway, which re-submits
   * it as a new attempt and cancels this one everywhere.
   */
  handoffRefused(request: R, carried: C, instanceId: string, message: string, nowUs: Micros, why: HandoffFailure = 'nack'): void {
    this.cluster.done(instanceId, request.id);
    this.releasePrefill(request.id);
    if (this.owners.get(request.id)?.instanceId === instanceId) this.owners.delete(request.id);
    const refused = this.refusedBy.get(request) ?? new Set<string>();
    refused.add(instanceId);
    this.refusedBy.set(request, refused);
    if (this.effects.handBack && copyMayBeTaken(why)) {
      this.effects.handBack(request, carried, { resumeAt: 'router', reason: 'next_unavailable', message: `${message} (the copy may still run there: not routed again)` });
      return;
    }
    const remaining = this.cluster.view(nowUs).instances.filter((i) => i.model === request.model && !refused.has(i.instanceId));
    if (remaining.length === 0) {
      // Every instance absent or silent (a bus outage, every worker restarting): not the request's
      // fault; its gateway sends it again a little later.
      if (this.effects.handBack && worthHandingBack(why)) {
        this.effects.handBack(request, carried, { resumeAt: 'router', reason: 'next_unavailable', message: `${message} (tried ${refused.size} instance${refused.size === 1 ? '' : 's'})` });
        return;
      }
      this.effects.reject(request, carried, 'worker_unreachable', `${message} (tried ${refused.size} instance${refused.size === 1 ? '' : 's'})`);
      return;
    }
    this.route(request, nowUs, carried);
  }

  /** The stage's bus connection is down: instances cannot be judged by their silence until it is back. */
  suspendExpiry(): void {
    this.expirySuspended = true;
  }

  /** The connection is back: every instance counts as heard now. */
  resumeExpiry(nowUs: Micros): void {
    this.expirySuspended = false;
    this.cluster.touchAll(nowUs);
  }

  onLifecycle(event: LifecycleEvent): void {
    if (event.type === 'register') this.effects.instanceJoined(event.instanceId, event.workerId);
    // Every lifecycle event carries the instance's identity: its role is what the newest one says.
    if (event.role !== undefined && event.role !== 'both') this.roles.set(event.instanceId, event.role);
    else this.roles.delete(event.instanceId);
    const held = this.cluster.onLifecycle(event);
    if (event.type === 'deregister') this.instanceGone(event.instanceId, held, 'deregistered', event.atUs);
  }

  /** Whether this stage reads the workers' KV events (its policy scores on them); the others ignore them. */
  get wantsKvEvents(): boolean {
    return this.kvCache !== undefined;
  }

  /** A worker's KV event: the caches' contents, visible to the policy at the index's next refresh. */
  onKv(event: KvEvent): void {
    this.kvCache?.receive(event);
  }

  onSnapshot(snapshot: LoadSnapshot): void {
    this.cluster.onSnapshot(snapshot);
  }

  /** Admission's busy thresholds; an announcement older than those held is ignored. Says whether they changed. */
  onBusyThresholds(announcement: BusyThresholdsAnnouncement): boolean {
    return this.busy.adopt(announcement);
  }

  /** The busy thresholds this router applies, and when they were last changed. */
  busyThresholds(): BusyThresholdsAnnouncement {
    return this.busy.announcement();
  }

  /** Idempotent; a late done from an instance that no longer holds the request (it migrated) leaves the new owner alone. */
  onDone(done: RequestDone): void {
    this.cluster.done(done.instanceId, done.requestId);
    if (done.prefillOnly) {
      if (this.prefillOwners.get(done.requestId) === done.instanceId) this.prefillOwners.delete(done.requestId);
      return;
    }
    if (this.owners.get(done.requestId)?.instanceId !== done.instanceId) return;
    this.owners.delete(done.requestId);
    // Its prefill instance never reported (the job was refused and the prompt prefilled locally): its count goes too.
    this.releasePrefill(done.requestId);
  }

  /** The request no longer counts on its prefill instance. */
  private releasePrefill(requestId: string): void {
    const prefillId = this.prefillOwners.get(requestId);
    if (prefillId === undefined) return;
    this.prefillOwners.delete(requestId);
    this.cluster.done(prefillId, requestId);
  }

  wake(kind: RoutingWakeUp, atUs: Micros, nowUs: Micros = atUs): void {
    switch (kind) {
      case 'refresh':
        if (this.refresh?.due(atUs)) this.cluster.refresh();
        return;
      case 'sweep':
        if (!this.sweep.due(atUs) || this.expirySuspended) return;
        for (const lost of this.cluster.expire(nowUs)) this.instanceGone(lost.instanceId, lost.inFlight, 'silent', nowUs);
        return;
    }
  }

  /** The instances as the policy sees them now (the in-flight gauge). */
  instances(nowUs: Micros): readonly InstanceView[] {
    return this.cluster.view(nowUs).instances;
  }

  instanceCount(): number {
    return this.cluster.size();
  }

  /** Says what the router knew when it found no instance: an empty pool, or every one refused or draining. */
  private noWorkerMessage(request: R): string {
    const { known, draining } = this.cluster.census(request.model);
    const refused = this.refusedBy.get(request)?.size ?? 0;
    const what = known === 0 ? 'none is known' : `${known} known, ${draining} draining, ${refused} refused this request`;
    return `no worker instance serves model "${request.model}" (${what})`;
  }

  /** The policy's view; with a KV-event index, refreshed first if due (BLIS's lazy rule) and its age attached. */
  private viewAt(nowUs: Micros): ClusterView {
    const kvCache = this.kvCache;
    if (!kvCache) return this.cluster.view(nowUs, this.prefix);
    kvCache.refreshIfDue(nowUs);
    return { ...this.cluster.view(nowUs, this.prefix, kvCache), kvCacheAgeUs: kvCache.viewAgeUs(nowUs) };
  }

  /** The view without the instances that already refused this request. */
  private withoutRefusals(request: R, view: ReturnType<ClusterState['view']>): ReturnType<ClusterState['view']> {
    const refused = this.refusedBy.get(request);
    if (!refused) return view;
    return { ...view, instances: view.instances.filter((i) => !refused.has(i.instanceId)) };
  }

  /** An instance left routing: its prefix beliefs go, and the requests it held are reported. */
  private instanceGone(instanceId: string, requestIds: readonly string[], why: 'deregistered' | 'silent', nowUs: Micros): void {
    this.prefix.dropInstance(instanceId);
    this.kvCache?.clear(instanceId);
    if (this.cluster.size() === 0) this.refillUntilUs = micros(Math.max(this.refillUntilUs ?? 0, nowUs + this.heartbeatTimeoutUs));
    this.roles.delete(instanceId);
    const held: R[] = [];
    for (const id of requestIds) {
      const owner = this.owners.get(id);
      // A request whose prompt the lost instance was prefilling is lost with it, as is one it decoded.
      const prefilling = this.prefillOwners.get(id) === instanceId;
      if (prefilling) this.prefillOwners.delete(id);
      if (!owner || (owner.instanceId !== instanceId && !prefilling)) continue;
      this.owners.delete(id);
      if (owner.instanceId !== instanceId) this.cluster.done(owner.instanceId, id);
      held.push(owner.request);
    }
    this.effects.instanceLost(instanceId, held, why);
  }
}
