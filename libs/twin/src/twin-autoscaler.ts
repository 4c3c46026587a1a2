import { micros, type FlowQueueReport, type LifecycleEvent, type LoadSnapshot, type Micros } from '@sluice/contracts';
import { AutoscalerStage, type AutoscalerDecision, type AutoscalerEffects, type AutoscalerSettings } from '@sluice/stages';
import type { TwinNetwork } from './network.js';
import type { WorkerFleet } from './worker-fleet.js';

/** A lifecycle event as the autoscaler heard it (the run report's instance timeline is built from these). */
export interface HeardLifecycle {
  readonly instanceId: string;
  readonly workerId: string;
  readonly type: LifecycleEvent['type'];
  readonly atUs: Micros;
}

/** What the autoscaler of a twin run did and heard: every decision, every instance's comings and goings. */
export interface TwinAutoscalerLog {
  readonly decisions: readonly AutoscalerDecision[];
  /** Register, drain and deregister events in the order the autoscaler heard them (heartbeats left out). */
  readonly lifecycle: readonly HeardLifecycle[];
}

/**
 * The autoscaler process of a twin run: the same `AutoscalerStage` the live service drives, fed
 * what the live one hears on the bus, at the times the twin's other stages hear it (lifecycle
 * events, load snapshots and flow-control queue reports at once: docs/twin.md's signal model),
 * deciding on the agenda's `decide` ticks. Its `set-instances` request reaches the worker process
 * one transit later (a control verb over NATS), and is lost on a process that is gone. Worker
 * presence (the process's heartbeat, which live carries the process even with no instance
 * running) is a tick of its own at the workers' heartbeat interval, while the process is up.
 * No rule lives here: only when things arrive.
 */
export class TwinAutoscaler implements AutoscalerEffects {
  readonly core: AutoscalerStage;
  private readonly decisions: AutoscalerDecision[] = [];
  private readonly lifecycle: HeardLifecycle[] = [];

  constructor(
    settings: AutoscalerSettings,
    private readonly network: TwinNetwork,
    private readonly workers: WorkerFleet,
    /** The workers' presence heartbeat interval (worker.heartbeatIntervalMs). */
    private readonly presenceIntervalUs: Micros,
  ) {
    this.core = new AutoscalerStage(settings, this, {
      wakeAt: (kind, atUs) => network.periodic('decide', atUs, () => this.core.wake(kind, atUs, network.nowUs)),
    });
  }

  /** Each worker process says it is up, then beats; the core starts its decision ticks. */
  start(nowUs: Micros): void {
    this.presence(nowUs);
    this.core.start(nowUs);
  }

  onLifecycle(event: LifecycleEvent): void {
    this.core.onLifecycle(event, this.network.nowUs);
    if (event.type !== 'heartbeat') this.lifecycle.push({ instanceId: event.instanceId, workerId: event.workerId, type: event.type, atUs: this.network.nowUs });
  }

  onSnapshot(snapshot: LoadSnapshot): void {
    this.core.onSnapshot(snapshot);
  }

  onFlowQueue(report: FlowQueueReport): void {
    this.core.onFlowQueue(report);
  }

  /** The `set-instances` control request: it reaches the worker process one transit later. */
  setActive(workerId: string, instances: number, atUs: Micros): void {
    const process = this.workers.processes.find((p) => p.workerId === workerId);
    if (process === undefined) throw new Error(`the autoscaler scaled worker ${workerId}, which the twin does not run`);
    this.network.queue.at(atUs + this.network.hops.transitUs, 'scale', () => {
      if (process.state === 'up') process.stage.setActive(instances, this.network.nowUs);
    });
  }

  decided(decision: AutoscalerDecision): void {
    this.decisions.push(decision);
  }

  log(): TwinAutoscalerLog {
    return { decisions: this.decisions, lifecycle: this.lifecycle };
  }

  /** A presence beat of every worker process still up, then the next one. */
  private presence(nowUs: Micros): void {
    for (const process of this.workers.processes) if (process.state === 'up') this.core.onWorker(process.workerId, nowUs);
    const nextUs = micros(nowUs + this.presenceIntervalUs);
    this.network.periodic('heartbeat', nextUs, () => this.presence(nextUs));
  }
}
