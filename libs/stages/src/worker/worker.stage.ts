import type { Micros, OutcomeReason, WorkerFaults } from '@sluice/contracts';
import { VllmEngine } from '@sluice/engine';
import { Periodic } from '../wake-ups.js';
import type { HeldRequest } from './held-request.js';
import { InstanceCore } from './instance.core.js';
import { InstanceSlots, type SlotCounts } from './instance-slots.js';
import type { WorkerEffects, WorkerWakeUp } from './worker.effects.js';
import type { WorkerSettings } from './worker.settings.js';

/**
 * A worker (docs/architecture.md, "Workers"): N instances of one model, data-parallel ranks of one
 * worker, each with its own engine. The worker announces its instances (register, heartbeats,
 * drain, deregister), publishes their load snapshots on one tick for all of them, routes cancels
 * to the instance holding the request, and sets fault knobs. Pure: the caller passes the time.
 */
export class WorkerStage<H extends HeldRequest> {
  readonly instances: readonly InstanceCore<H>[];
  private readonly byId = new Map<string, InstanceCore<H>>();
  private readonly snapshots: Periodic<WorkerWakeUp>;
  private readonly heartbeats: Periodic<WorkerWakeUp>;
  /** Where each instance is in its life (instance-slots.ts): only `ready` ones take work. */
  readonly slots: InstanceSlots<H>;

  constructor(
    private readonly settings: WorkerSettings,
    private readonly effects: WorkerEffects<H>,
    /** Each instance's seeded random source (failure injection), by its id; `<id>/kv` for its KV residency sampling. */
    private readonly randomFor: (instanceId: string) => () => number,
  ) {
    const instances: InstanceCore<H>[] = [];
    for (let rank = 0; rank < settings.instances; rank++) {
      const role = settings.roles?.[rank] ?? 'both';
      // An aggregated instance registers without a role, as before roles existed.
      const identity = { instanceId: `${settings.workerId}-r${rank}`, workerId: settings.workerId, rank, model: settings.model, totalKvBlocks: settings.totalKvBlocks, ...(role !== 'both' && { role }) };
      const engine = this.newEngine(identity.instanceId);
      const instance = new InstanceCore(identity, engine, effects, randomFor(identity.instanceId), settings.publishOnChange, settings.kvTransfer);
      instances.push(instance);
      this.byId.set(identity.instanceId, instance);
    }
    this.instances = instances;
    const wakeUps = { wakeAt: (kind: WorkerWakeUp, atUs: Micros) => effects.wakeWorker(kind, atUs) };
    this.snapshots = new Periodic<WorkerWakeUp>('snapshot', settings.loadIntervalUs, wakeUps);
    this.heartbeats = new Periodic<WorkerWakeUp>('heartbeat', settings.heartbeatIntervalUs, wakeUps);
    this.slots = new InstanceSlots(instances, settings, effects, (instance, nowUs) => this.join(instance, nowUs), (instanceId) => this.newEngine(instanceId));
  }

  /** A new engine for an instance, empty: at construction, and when a parked instance starts again. */
  private newEngine(instanceId: string): VllmEngine<H> {
    const { settings } = this;
    return new VllmEngine<H>({
      model: settings.latency,
      totalKvBlocks: settings.totalKvBlocks,
      maxModelLen: settings.maxModelLen,
      maxRunning: settings.maxRunning,
      maxBatchTokens: settings.maxBatchTokens,
      scheduler: settings.scheduler,
      compat: settings.compat,
      kvResidencySample: settings.kvResidencySample,
      random: settings.kvResidencySample ? this.randomFor(`${instanceId}/kv`) : undefined,
    });
  }

  /** An instance joins the cluster: it registers, its cache starts empty, its first snapshot goes out. */
  private join(instance: InstanceCore<H>, nowUs: Micros): void {
    this.effects.lifecycle(instance, 'register', nowUs);
    // Its cache starts empty: readers drop whatever they believed of an earlier life under this id.
    this.effects.kv(instance, [], [], nowUs, true);
    instance.publishLoad(nowUs);
  }

  instance(instanceId: string): InstanceCore<H> | undefined {
    return this.byId.get(instanceId);
  }

  /**
   * Registers the instances that start ready (`initialInstances`, the first ranks; the rest wait
   * parked for an autoscaler) and publishes their first load snapshots, then ticks snapshots and
   * heartbeats.
   */
  start(nowUs: Micros): void {
    const ready = this.slots.begin(nowUs);
    for (const instance of ready) this.effects.lifecycle(instance, 'register', nowUs);
    for (const instance of ready) this.effects.kv(instance, [], [], nowUs, true);
    for (const instance of ready) instance.publishLoad(nowUs);
    this.snapshots.start(nowUs);
    this.heartbeats.start(nowUs);
  }

  /** A stage that follows lifecycle events asked who is there: every instance in the cluster registers again (a draining one says so after). */
  announce(nowUs: Micros): void {
    for (const instance of this.slots.inCluster()) {
      this.effects.lifecycle(instance, 'register', nowUs);
      if (this.slots.stateOf(instance.instanceId) === 'draining') this.effects.lifecycle(instance, 'drain', nowUs);
    }
  }

  /**
   * An autoscaler set how many of this worker's instances should run: parked ones start (ready
   * after the modelled start-up), or the newest leave (drain, finish or hand back, park). Returns
   * the counts after the change.
   */
  setActive(count: number, nowUs: Micros): SlotCounts {
    return this.slots.setActive(count, nowUs);
  }

  /**
   * A tick it asked for. A snapshot is stamped with when it is really taken (`nowUs`), not when the
   * tick was due: readers judge it by its age, and the flow controller counts the dispatches
   * made since as not yet in it; a stamp a late timer made too early counted some twice.
   */
  wake(kind: WorkerWakeUp, atUs: Micros, nowUs: Micros = atUs): void {
    switch (kind) {
      case 'snapshot':
        if (!this.snapshots.due(atUs)) return;
        for (const instance of this.slots.inCluster()) instance.publishLoad(nowUs);
        // A draining instance is looked at on the same tick: parked once empty, or past its grace.
        this.slots.settleDrains(nowUs);
        return;
      case 'heartbeat':
        if (this.heartbeats.due(atUs)) for (const instance of this.slots.inCluster()) this.effects.lifecycle(instance, 'heartbeat', nowUs);
        return;
      case 'startup':
        this.slots.wake(atUs);
        return;
    }
  }

  /**
   * The gateway let a request go: every instance holding it drops it (two can: a disaggregated
   * request's decode instance and its prefill job). False if none here holds it.
   */
  cancel(requestId: string, reason: OutcomeReason, nowUs: Micros): boolean {
    let cancelled = false;
    for (const instance of this.instances) if (instance.cancel(requestId, reason, nowUs)) cancelled = true;
    return cancelled;
  }

  /** The requests under that id and the instances holding them: one, or two for a request prefilled and decoded here. */
  holdings(requestId: string): { readonly instance: InstanceCore<H>; readonly request: H }[] {
    const found: { instance: InstanceCore<H>; request: H }[] = [];
    for (const instance of this.instances) {
      const request = instance.holding(requestId);
      if (request) found.push({ instance, request });
    }
    return found;
  }

  /** A prefill instance answered the decode instance `decodeInstanceId` of this worker; false if it waits for nothing of the kind. */
  prefilled(decodeInstanceId: string, requestId: string, outcome: 'ok' | 'failed', prefillInstanceId: string, nowUs: Micros): boolean {
    return this.byId.get(decodeInstanceId)?.prefilled(requestId, outcome, prefillInstanceId, nowUs) ?? false;
  }

  /** Every instance gives back what it still holds (a drain past its grace). Returns how many. */
  handBackAll(nowUs: Micros): number {
    let count = 0;
    for (const instance of this.instances) count += instance.handBackAll(nowUs);
    return count;
  }

  /** Sets fault knobs on one instance, or on all when `instanceId` is undefined; undefined if none matches. */
  setFaults(instanceId: string | undefined, change: Partial<WorkerFaults>): Record<string, WorkerFaults> | undefined {
    return this.eachOf(instanceId, (i) => i.setFaults(change));
  }

  /** The fault knobs of one instance, or of all when `instanceId` is undefined; undefined if none matches. */
  faults(instanceId: string | undefined): Record<string, WorkerFaults> | undefined {
    return this.eachOf(instanceId, (i) => i.currentFaults());
  }

  /** Stops taking work (the process shuts down): every instance in the cluster announces that it drains (routing stops sending it requests); none starts any more. */
  drain(nowUs: Micros): void {
    this.slots.cancelStartUps();
    for (const instance of this.slots.inCluster()) this.effects.lifecycle(instance, 'drain', nowUs);
  }

  hasWork(): boolean {
    return this.instances.some((i) => i.hasWork());
  }

  /** Leaves the cluster: no more ticks, every instance deregisters. */
  stop(nowUs: Micros): void {
    this.snapshots.stop();
    this.heartbeats.stop();
    for (const instance of this.slots.inCluster()) this.effects.lifecycle(instance, 'deregister', nowUs);
  }

  /** `read` of the one instance named, or of every instance when none is named, by id. */
  private eachOf(instanceId: string | undefined, read: (instance: InstanceCore<H>) => WorkerFaults): Record<string, WorkerFaults> | undefined {
    const targets = this.instances.filter((i) => instanceId === undefined || i.instanceId === instanceId);
    if (targets.length === 0) return undefined;
    return Object.fromEntries(targets.map((i) => [i.instanceId, read(i)]));
  }
}
