import { heardAt, type FlowQueueReport, type LifecycleEvent, type LoadSnapshot, type Micros } from '@sluice/contracts';
import { Periodic, type WakeUps } from '../wake-ups.js';
import { limitRate, replicasForAverageValue, replicasForUsageRatio, stabilize, type Recommendation, type ScaleEvent } from './hpa-rules.js';
import type { AutoscalerDecision, AutoscalerEffects } from './autoscaler.effects.js';
import type { AutoscalerSettings } from './autoscaler.settings.js';
import { spreadInstances } from './spread-instances.js';

export type AutoscalerWakeUp = 'decide';

interface Instance {
  readonly workerId: string;
  draining: boolean;
  lastSeenUs: Micros;
}

interface WorkerProcess {
  /** How many of its instances it was asked to run (or starts with). */
  requested: number;
  lastSeenUs: Micros;
}

/**
 * The autoscaler (docs/autoscaling.md): every `interval` it reads one metric from what the bus
 * carries, computes the HPA's recommendation (hpa-rules.ts), stabilizes and rate-limits it, and
 * sets how many instances each worker process runs. With `minInstances` 0 it follows KEDA's
 * activation instead at the edges of zero (kedacore/keda pkg/scaling/executor
 * scale_scaledobjects.go): out of zero to one instance when the metric is above
 * `activationTarget`, back to zero once it has stayed at or below it for `cooldown`; in between
 * the HPA decides, with a floor of one. Pure: the caller passes the time.
 *
 * The HPA's current size is what it last set (the scale's spec), not what is ready: an instance
 * still loading counts, so a decision never starts a second one for the same demand.
 */
export class AutoscalerStage {
  private readonly instances = new Map<string, Instance>();
  private readonly workers = new Map<string, WorkerProcess>();
  private readonly flowQueues = new Map<string, { queued: number; atUs: Micros }>();
  private readonly snapshots = new Map<string, LoadSnapshot>();
  private readonly recommendations: Recommendation[] = [];
  private readonly ups: ScaleEvent[] = [];
  private readonly downs: ScaleEvent[] = [];
  private readonly ticks: Periodic<AutoscalerWakeUp>;
  /** KEDA: when the metric was last above the activation target. */
  private lastActiveUs: Micros | undefined;

  constructor(
    private readonly settings: AutoscalerSettings,
    private readonly effects: AutoscalerEffects,
    wakeUps: WakeUps<AutoscalerWakeUp>,
  ) {
    this.ticks = new Periodic('decide', settings.intervalUs, wakeUps);
  }

  start(nowUs: Micros): void {
    this.ticks.start(nowUs);
  }

  stop(): void {
    this.ticks.stop();
  }

  // ── what it follows ───────────────────────────────────────────────────────────────────────

  /** A worker process is there (its presence, or any event of its instances): it starts with `initialPerWorker` instances. */
  onWorker(workerId: string, nowUs: Micros): void {
    const known = this.workers.get(workerId);
    if (known) known.lastSeenUs = nowUs;
    else this.workers.set(workerId, { requested: this.settings.initialPerWorker, lastSeenUs: nowUs });
  }

  /** A worker process left (its presence said `down`, or it went silent): what it ran no longer counts. */
  onWorkerGone(workerId: string): void {
    this.workers.delete(workerId);
    for (const [id, instance] of this.instances) if (instance.workerId === workerId) this.forget(id);
  }

  /** A worker process restarted (presence `up` again): it runs its initial instances until told otherwise. */
  onWorkerRestarted(workerId: string, nowUs: Micros): void {
    this.workers.set(workerId, { requested: this.settings.initialPerWorker, lastSeenUs: nowUs });
  }

  onLifecycle(event: LifecycleEvent, nowUs: Micros): void {
    this.onWorker(event.workerId, nowUs);
    switch (event.type) {
      case 'register':
      case 'heartbeat': {
        const known = this.instances.get(event.instanceId);
        if (known) known.lastSeenUs = nowUs;
        else this.instances.set(event.instanceId, { workerId: event.workerId, draining: false, lastSeenUs: nowUs });
        // A worker runs at least what has registered of it: an autoscaler that restarted (or
        // forgot the workers in a bus outage) learns what runs from the announcements it asks for.
        // Only a register counts: a heartbeat can still come from an instance a scale-down is
        // about to drain.
        if (event.type === 'register') this.raiseToRegistered(event.workerId);
        return;
      }
      case 'drain': {
        const known = this.instances.get(event.instanceId);
        if (known) known.draining = true;
        return;
      }
      case 'deregister':
        this.forget(event.instanceId);
        return;
    }
  }

  private raiseToRegistered(workerId: string): void {
    const worker = this.workers.get(workerId)!;
    let ready = 0;
    for (const instance of this.instances.values()) if (instance.workerId === workerId && !instance.draining) ready++;
    if (ready > worker.requested) worker.requested = ready;
  }

  onSnapshot(snapshot: LoadSnapshot): void {
    if (this.instances.has(snapshot.instanceId)) this.snapshots.set(snapshot.instanceId, snapshot);
  }

  onFlowQueue(report: FlowQueueReport): void {
    let queued = 0;
    for (const band of report.bands) queued += band.requests;
    this.flowQueues.set(report.processId, { queued, atUs: report.atUs });
  }

  // ── deciding ──────────────────────────────────────────────────────────────────────────────

  wake(kind: AutoscalerWakeUp, atUs: Micros, nowUs: Micros = atUs): void {
    if (kind !== 'decide' || !this.ticks.due(atUs)) return;
    this.sweep(nowUs);
    this.decide(atUs, nowUs);
  }

  /** Instances ready (registered, not draining), and what the workers were asked to run. */
  sizes(): { readonly ready: number; readonly requested: number } {
    let ready = 0;
    for (const instance of this.instances.values()) if (!instance.draining) ready++;
    let requested = 0;
    for (const worker of this.workers.values()) requested += worker.requested;
    return { ready, requested };
  }

  /**
   * One decision. What it reads is as of `nowUs`; its own history (recommendations, scale events,
   * KEDA's last activity) is kept on the decisions' schedule, `atUs`, so a window or policy period
   * that is a multiple of the interval cuts the same decisions whether a timer ran late or not
   * (the twin's are never late).
   */
  private decide(atUs: Micros, nowUs: Micros): void {
    const { settings } = this;
    const { ready, requested: current } = this.sizes();
    const value = this.metricValue(nowUs);
    let recommended: number;
    let stabilized: number;
    let desired: number;
    let rule: AutoscalerDecision['rule'];
    const active = value > settings.activationTarget;
    if (active) this.lastActiveUs = atUs;
    if (settings.minInstances === 0 && current === 0) {
      // KEDA activates the pool: one instance; the HPA takes it from there.
      recommended = stabilized = desired = active ? 1 : 0;
      rule = active ? 'activate' : 'inactive';
    } else if (settings.minInstances === 0 && !active && atUs - (this.lastActiveUs ?? Number.NEGATIVE_INFINITY) >= settings.cooldownUs) {
      recommended = stabilized = desired = 0;
      rule = 'cooldown';
    } else {
      recommended = settings.target.kind === 'averageValue' ? replicasForAverageValue(current, value, settings.target.value, settings.tolerance) : replicasForUsageRatio(current, ready, value, settings.target.value, settings.tolerance);
      this.remember(recommended, atUs);
      stabilized = stabilize(current, this.recommendations, atUs, settings.scaleUp, settings.scaleDown, recommended);
      desired = limitRate(current, stabilized, Math.max(1, settings.minInstances), settings.maxInstances, this.ups, this.downs, settings.scaleUp, settings.scaleDown, atUs);
      rule = 'hpa';
    }
    desired = Math.min(desired, this.capacity());
    if (desired !== current) this.scaleTo(desired, current, atUs, nowUs);
    this.effects.decided({ atUs: nowUs, metric: settings.metric, value, current, ready, recommended, stabilized, desired, rule });
  }

  /** Changes the workers' sizes (spread evenly, spreadInstances) and records the change for the rate limits. */
  private scaleTo(desired: number, current: number, atUs: Micros, nowUs: Micros): void {
    const change = desired - current;
    (change > 0 ? this.ups : this.downs).push({ atUs, change: Math.abs(change) });
    const ids = [...this.workers.keys()].sort();
    const counts = spreadInstances(
      ids.map((id) => this.workers.get(id)!.requested),
      this.settings.slotsPerWorker,
      desired,
    );
    for (const [i, id] of ids.entries()) {
      const worker = this.workers.get(id)!;
      if (worker.requested === counts[i]) continue;
      worker.requested = counts[i]!;
      this.effects.setActive(id, counts[i]!, nowUs);
    }
  }

  /** The metric now: flow control's queued requests (every replica's last report), or the ready instances' KV use or in-flight requests. */
  private metricValue(nowUs: Micros): number {
    const { metric, staleUs } = this.settings;
    if (metric === 'queueDepth') {
      let queued = 0;
      for (const report of this.flowQueues.values()) if (nowUs - report.atUs <= staleUs) queued += report.queued;
      return queued;
    }
    let sum = 0;
    let count = 0;
    for (const [id, instance] of this.instances) {
      if (instance.draining) continue;
      const snapshot = this.snapshots.get(id);
      if (!snapshot) continue;
      sum += metric === 'kvUtilization' ? snapshot.kvUtilization : snapshot.inFlight;
      count++;
    }
    return metric === 'kvUtilization' ? (count === 0 ? 0 : sum / count) : sum;
  }

  /** The most instances the known workers can run. */
  private capacity(): number {
    return this.workers.size * this.settings.slotsPerWorker;
  }

  private remember(replicas: number, nowUs: Micros): void {
    this.recommendations.push({ atUs: nowUs, replicas });
    // Only the longer window's recommendations can still matter; events only the longest policy period.
    const keepUs = Math.max(this.settings.scaleUp.stabilizationWindowUs, this.settings.scaleDown.stabilizationWindowUs);
    while (this.recommendations.length > 0 && this.recommendations[0]!.atUs <= nowUs - keepUs) this.recommendations.shift();
    const periodUs = this.settings.longestPolicyPeriodUs;
    for (const events of [this.ups, this.downs]) while (events.length > 0 && events[0]!.atUs <= nowUs - periodUs) events.shift();
  }

  /** Instances and flow-control reports not heard of for a staleness period are forgotten (a worker killed without a word). */
  private sweep(nowUs: Micros): void {
    for (const [id, instance] of this.instances) if (nowUs - instance.lastSeenUs > this.settings.staleUs) this.forget(id);
    for (const [id, worker] of this.workers) if (nowUs - worker.lastSeenUs > this.settings.staleUs) this.onWorkerGone(id);
    for (const [id, report] of this.flowQueues) {
      // A report dated ahead of this clock ages from now: its sender's clock cannot keep it counted.
      report.atUs = heardAt(report.atUs, nowUs);
      if (nowUs - report.atUs > this.settings.staleUs) this.flowQueues.delete(id);
    }
  }

  private forget(instanceId: string): void {
    this.instances.delete(instanceId);
    this.snapshots.delete(instanceId);
  }
}
