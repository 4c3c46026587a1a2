import { micros, type Micros } from '@sluice/contracts';
import type { VllmEngine } from '@sluice/engine';
import type { HeldRequest } from './held-request.js';
import type { InstanceCore } from './instance.core.js';
import type { WorkerEffects } from './worker.effects.js';
import type { WorkerSettings } from './worker.settings.js';

/**
 * Where an instance is in its life, as an autoscaler drives it:
 * - `parked`: not in the cluster (a pod not yet created, or deleted); it takes nothing.
 * - `starting`: created, loading its model (`startupUs`, the profile's `modelLoadMs`); not yet
 *   registered, so nobody routes to it.
 * - `ready`: registered and routable.
 * - `draining`: leaving: it announced `drain`, finishes what it holds within `drainGraceUs` or
 *   hands the rest back to the gateways (which migrate it), then deregisters and is parked.
 */
export type SlotState = 'parked' | 'starting' | 'ready' | 'draining';

/** How many of a worker's instances are in each state that counts toward its size. */
export interface SlotCounts {
  /** Starting or ready: what the worker was asked to run. */
  readonly active: number;
  readonly starting: number;
  readonly ready: number;
  readonly draining: number;
}

interface Slot<H extends HeldRequest> {
  readonly instance: InstanceCore<H>;
  state: SlotState;
  /** `starting`: when it is ready; `draining`: when its grace ends. */
  untilUs?: Micros;
}

/**
 * The life of a worker's instances under an autoscaler (the worker's `setActive`). Which instance
 * goes or comes follows what Kubernetes' ReplicaSet controller does with pods on a scale change
 * (kubernetes/kubernetes pkg/controller/controller_utils.go, `ActivePods` ordering): a scale-down
 * removes a pod not yet ready before a ready one, and the newest first; here the highest rank is
 * the newest. A scale-up starts the lowest parked ranks. An instance that comes back is a new
 * pod: an empty engine (`coldStart`). Pure: the caller passes the time.
 */
export class InstanceSlots<H extends HeldRequest> {
  private readonly slots: Slot<H>[];
  private readonly byId = new Map<string, Slot<H>>();
  /** The pending `startup` wake-up, for the earliest starting instance. */
  private wakeAtUs: Micros | undefined;

  constructor(
    instances: readonly InstanceCore<H>[],
    private readonly settings: Pick<WorkerSettings, 'instances' | 'initialInstances' | 'startupUs' | 'drainGraceUs' | 'loadModelAtStart'>,
    private readonly effects: Pick<WorkerEffects<H>, 'lifecycle' | 'wakeWorker'>,
    /** Registers an instance that became ready (its `register`, its cleared cache, its first snapshot). */
    private readonly join: (instance: InstanceCore<H>, nowUs: Micros) => void,
    private readonly newEngine: (instanceId: string) => VllmEngine<H>,
  ) {
    // The first `initialInstances` ranks are the cluster's starting size, ready from the start; the rest wait parked.
    const initial = settings.initialInstances ?? settings.instances;
    this.slots = instances.map((instance, rank) => ({ instance, state: rank < initial ? 'ready' : 'parked' }));
    for (const slot of this.slots) this.byId.set(slot.instance.instanceId, slot);
  }

  /**
   * At the worker's start. With `loadModelAtStart` (a new pod an autoscaler created, which has to
   * load its model like any new instance) the initial instances start `starting` and register when
   * the load has passed; otherwise they are ready at once (the cluster's starting size). Returns
   * the ready ones.
   */
  begin(nowUs: Micros): InstanceCore<H>[] {
    if (this.settings.loadModelAtStart && this.settings.startupUs > 0) {
      for (const slot of this.slots) {
        if (slot.state !== 'ready') continue;
        slot.state = 'starting';
        slot.untilUs = micros(nowUs + this.settings.startupUs);
      }
      this.rearm();
    }
    return this.inCluster();
  }

  /** Every instance the worker runs is ready (none starting): a process reports ready then. */
  allLoaded(): boolean {
    return !this.slots.some((slot) => slot.state === 'starting');
  }

  stateOf(instanceId: string): SlotState | undefined {
    return this.byId.get(instanceId)?.state;
  }

  /** Whether a request reaching this instance may run here: only a ready one takes work. */
  takesWork(instanceId: string): boolean {
    return this.byId.get(instanceId)?.state === 'ready';
  }

  /** The instances other stages know of (ready or draining): they heartbeat and publish snapshots. */
  inCluster(): InstanceCore<H>[] {
    return this.slots.filter((slot) => slot.state === 'ready' || slot.state === 'draining').map((slot) => slot.instance);
  }

  counts(): SlotCounts {
    let starting = 0;
    let ready = 0;
    let draining = 0;
    for (const slot of this.slots) {
      if (slot.state === 'starting') starting++;
      else if (slot.state === 'ready') ready++;
      else if (slot.state === 'draining') draining++;
    }
    return { active: starting + ready, starting, ready, draining };
  }

  /** Start or stop instances until `count` are starting or ready (at most every instance, at least none). */
  setActive(count: number, nowUs: Micros): SlotCounts {
    const target = Math.max(0, Math.min(Math.floor(count), this.slots.length));
    let active = this.counts().active;
    for (const slot of this.slots) {
      if (active >= target) break;
      if (slot.state !== 'parked') continue;
      slot.state = 'starting';
      slot.untilUs = micros(nowUs + this.settings.startupUs);
      active++;
    }
    // Not yet ready before ready, newest (highest rank) first.
    for (const state of ['starting', 'ready'] as const) {
      for (let i = this.slots.length - 1; i >= 0 && active > target; i--) {
        const slot = this.slots[i]!;
        if (slot.state !== state) continue;
        if (state === 'starting') this.park(slot);
        else this.beginDrain(slot, nowUs);
        active--;
      }
    }
    this.rearm();
    this.settleDrains(nowUs);
    return this.counts();
  }

  /** The `startup` wake-up: every starting instance whose model has loaded becomes ready. */
  wake(atUs: Micros): void {
    if (atUs !== this.wakeAtUs) return;
    this.wakeAtUs = undefined;
    for (const slot of this.slots) {
      if (slot.state !== 'starting' || slot.untilUs! > atUs) continue;
      slot.state = 'ready';
      slot.untilUs = undefined;
      slot.instance.coldStart(this.newEngine(slot.instance.instanceId));
      this.join(slot.instance, atUs);
    }
    this.rearm();
  }

  /** Parks every draining instance that holds nothing, and hands back what a drain past its grace still holds. */
  settleDrains(nowUs: Micros): void {
    for (const slot of this.slots) {
      if (slot.state !== 'draining') continue;
      if (slot.instance.hasWork() && nowUs < slot.untilUs!) continue;
      if (slot.instance.hasWork()) slot.instance.handBackAll(nowUs);
      this.effects.lifecycle(slot.instance, 'deregister', nowUs);
      this.park(slot);
    }
  }

  /** The process is going away: nothing starts any more. */
  cancelStartUps(): void {
    for (const slot of this.slots) if (slot.state === 'starting') this.park(slot);
    this.wakeAtUs = undefined;
  }

  private beginDrain(slot: Slot<H>, nowUs: Micros): void {
    slot.state = 'draining';
    slot.untilUs = micros(nowUs + this.settings.drainGraceUs);
    this.effects.lifecycle(slot.instance, 'drain', nowUs);
  }

  private park(slot: Slot<H>): void {
    slot.state = 'parked';
    slot.untilUs = undefined;
  }

  /** One wake-up, for the earliest start-up still to come. */
  private rearm(): void {
    let earliest: Micros | undefined;
    for (const slot of this.slots) if (slot.state === 'starting' && (earliest === undefined || slot.untilUs! < earliest)) earliest = slot.untilUs;
    if (earliest === undefined || earliest === this.wakeAtUs) return;
    this.wakeAtUs = earliest;
    this.effects.wakeWorker('startup', earliest);
  }
}
