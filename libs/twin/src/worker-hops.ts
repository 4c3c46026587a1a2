import { subjects, type BlockId, type InstanceIdentity, type LifecycleEvent, type LoadSnapshot, type Micros, type OutcomeReason } from '@sluice/contracts';
import type { EngineSnapshot, StepResult } from '@sluice/engine';
import type { InstanceCore, InstanceWakeUp, WorkerCompletion, WorkerEffects, WorkerWakeUp } from '@sluice/stages';
import { countToken } from './client-records.js';
import { prefillJob, type Flight } from './flight.js';
import type { TwinNetwork } from './network.js';
import type { GatewayInbox, WorkerSignals } from './ports.js';
import { TwinStalledError } from './stalled.js';
import type { StepTimes } from './step-times.js';
import type { ProcessState, WorkerProcessWiring } from './worker-wiring.js';

/** What the hops need of the worker process they belong to. */
export interface WorkerHost {
  readonly state: ProcessState;
  /** Each instance's step log, by rank. */
  readonly steps: readonly StepTimes[];
  readonly stage: { wake(kind: WorkerWakeUp, atUs: Micros): void };
  /** One of its instances ended a step while it drains. */
  stepped(): void;
}

/**
 * One worker process's effects on the twin's agenda. While its process is gone (killed, or left
 * after its drain), nothing of it happens any more: no step ends, no tick, so no token, snapshot or
 * heartbeat (the stages learn of the loss by the silence, as live).
 */
export class WorkerHops implements WorkerEffects<Flight> {
  /** The step whose tokens are being counted: its number in its instance's log. */
  private step = -1;
  private readonly network: TwinNetwork;
  private readonly signals: WorkerSignals;
  private readonly inbox: GatewayInbox;

  constructor(
    private readonly process: WorkerHost,
    private readonly wiring: WorkerProcessWiring,
  ) {
    ({ network: this.network, signals: this.signals, inbox: this.inbox } = wiring);
  }

  received(): void {}
  accepted(): void {}
  hung(): void {}
  admitted(): void {}
  preempted(): void {}
  cancelled(): void {}
  transferStarted(): void {}
  transferEnded(): void {}
  transferFailed(): void {}
  prefillLocally(): void {}

  /**
   * The prompt reaches its prefill instance one transit later, as a job of its own. A prefill
   * instance whose process is gone or draining has no responder: the decode instance hears so one
   * transit after that and prefills the prompt itself.
   */
  prefillRequested(instance: InstanceCore<Flight>, flight: Flight, prefillInstanceId: string, atUs: Micros): void {
    const { network } = this;
    network.queue.at(atUs + network.hops.transitUs, 'workerArrive', () => {
      const prefill = this.wiring.instance(prefillInstanceId);
      if (prefill?.process.state === 'up') {
        prefill.core.acceptPrefillJob(prefillJob(flight, instance.instanceId), network.nowUs);
        return;
      }
      network.queue.at(network.nowUs + network.hops.transitUs, 'workerArrive', () => {
        if (this.process.state !== 'gone') instance.prefillRefused(flight.id, network.nowUs);
      });
    });
  }

  /** The prefill instance's answer reaches the decode instance one transit later, if it still waits for this attempt. */
  prefilled(instance: InstanceCore<Flight>, job: Flight, outcome: 'ok' | 'failed', atUs: Micros): void {
    const { network } = this;
    const decode = this.wiring.instance(job.prefillFor!);
    network.queue.at(atUs + network.hops.transitUs, 'workerArrive', () => {
      if (!decode || decode.process.state === 'gone' || decode.core.holding(job.id)?.attempt !== job.attempt) return;
      decode.core.prefilled(job.id, outcome, instance.instanceId, network.nowUs);
    });
  }

  /** Its drain ran past the grace period: back to the gateway, which continues it elsewhere. */
  handedBack(instance: InstanceCore<Flight>, flight: Flight, atUs: Micros): void {
    this.inbox.migrate(flight, 'worker_draining', 'router', 'worker', instance.instanceId, atUs + this.network.hops.transitUs);
  }

  /** BLIS parity mode: the routers' in-flight counts drop at the completing step's start. */
  completing(instance: InstanceCore<Flight>, requestIds: readonly string[]): void {
    if (this.wiring.blis) this.signals.completing(instance.instanceId, requestIds, this.network.nowUs);
  }

  stepEnded(instance: InstanceCore<Flight>, _result: StepResult<Flight>, tokenUs: Micros): void {
    this.step = this.process.steps[instance.rank]!.push((tokenUs + this.network.hops.returnUs) / 1000);
  }

  tokens(_instance: InstanceCore<Flight>, flight: Flight, count: number): void {
    if (count !== 1) throw new Error(`a step gave ${flight.id} ${count} tokens: the twin counts at most one per step (StepTokens.count)`);
    countToken(flight, this.step);
  }

  completed(instance: InstanceCore<Flight>, flight: Flight, completion: WorkerCompletion, atUs: Micros): void {
    this.inbox.end(flight, completion, instance.instanceId, this.process.steps[instance.rank]!, this.network.frameAtGatewayUs(atUs));
  }

  failed(_instance: InstanceCore<Flight>, flight: Flight, reason: OutcomeReason, message: string, atUs: Micros): void {
    this.inbox.error(flight, reason, message, 'worker', this.network.frameAtGatewayUs(atUs));
  }

  /**
   * The instance's done event reaches the router and flow control one transit later: every replica
   * of each (a replica that did not dispatch the request finds nothing to take off its books).
   */
  done(instance: InstanceCore<Flight>, flight: Flight, reason: OutcomeReason, atUs: Micros): void {
    const done = { requestId: flight.id, instanceId: instance.instanceId, reason, atUs, ...(flight.prefillFor !== undefined && { prefillOnly: true as const }) };
    this.network.queue.at(atUs + this.network.hops.transitUs, 'done', () => this.signals.done(done));
  }

  /** KV events feed each admission replica's prefix index at once, when one keeps it. */
  kv(instance: InstanceCore<Flight>, stored: readonly BlockId[], removed: readonly BlockId[], atUs: Micros, cleared = false): void {
    if (!this.signals.wantsKv) return;
    this.signals.kv({ instanceId: instance.instanceId, atUs, stored: [...stored], removed: [...removed], ...(cleared ? { cleared: true as const } : {}) });
  }

  /**
   * Snapshots reach every stage that follows them (every replica of each) at once: in the twin,
   * snapshot freshness is the interval alone, unless a bus fault on the load subject delays one (a
   * lagging signal) or drops it (never seen). One draw per snapshot: every replica gets the same
   * fate.
   */
  load(instance: InstanceCore<Flight>, snapshot: EngineSnapshot, atUs: Micros): void {
    const { network } = this;
    const { instanceId, workerId, rank } = instance.identity;
    const published: LoadSnapshot = { ...snapshot, instanceId, workerId, rank, atUs };
    if (network.busFaults.active) {
      const verdict = network.busFaults.decide(subjects.workerLoad(instanceId));
      if (verdict?.drop) return;
      if (verdict && verdict.delayUs > 0) {
        network.queue.at(network.queue.nowUs + verdict.delayUs, 'snapshot', () => this.signals.load(published));
        return;
      }
    }
    this.signals.load(published);
  }

  /** Lifecycle events reach every replica of every stage. */
  lifecycle(instance: InstanceCore<Flight>, type: LifecycleEvent['type'], atUs: Micros): void {
    this.signals.lifecycle({ ...(instance.identity satisfies InstanceIdentity), type, atUs });
  }

  wakeInstance(instance: InstanceCore<Flight>, kind: InstanceWakeUp, atUs: Micros): void {
    const { network, process } = this;
    if (kind === 'transfer') {
      network.queue.at(atUs, 'workerReady', () => {
        if (process.state !== 'gone') instance.wake('transfer', atUs);
      });
      return;
    }
    if (kind === 'ready') {
      network.queue.at(atUs, 'workerReady', () => {
        if (process.state !== 'gone') instance.wake('ready', atUs);
      });
      return;
    }
    network.queue.at(atUs, 'stepEnd', () => {
      if (process.state === 'gone') return; // it died during the step: the step never ends
      instance.wake('step', atUs);
      if (this.wiring.checkInvariants) instance.checkInvariants();
      if (process.state === 'draining') process.stepped();
    });
  }

  wakeWorker(kind: WorkerWakeUp, atUs: Micros): void {
    const { network, process } = this;
    if (kind === 'startup') {
      // A one-off, not a chore: an instance's model load ends whether or not a request waits, and
      // the pending start-up is work on the agenda (a run that waits for it does not stall).
      network.queue.at(atUs, 'startup', () => {
        if (process.state !== 'gone') process.stage.wake('startup', atUs);
      });
      return;
    }
    network.periodic(kind, atUs, () => {
      if (process.state === 'gone') return;
      // Requests without a record and nothing on the agenda that could move them: a bug, not a long wait.
      if (kind === 'snapshot' && !network.queue.hasWork) throw new TwinStalledError(this.wiring.outstanding(), network.queue.nowUs);
      process.stage.wake(kind, atUs);
    });
  }
}
