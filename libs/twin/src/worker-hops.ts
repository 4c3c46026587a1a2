import { subjects, type BlockId, type InstanceIdentity, type LifecycleEvent, type LoadSnapshot, type Micros, type OutcomeReason } from '@sluice/contracts';
import type { EngineSnapshot, StepResult } from '@sluice/engine';
import type { InstanceCore, InstanceWakeUp, WorkerCompletion, WorkerEffects, WorkerWakeUp } from '@sluice/stages';
import { completingNow } from './blis-signals.js';
import { countToken } from './client-records.js';
import type { Flight } from './flight.js';
import type { StepTimes } from './step-times.js';
import type { WorkerProcess } from './worker-process.js';
import { TwinStalledError, type World } from './world.js';

/**
 * One worker process's effects on the twin's agenda. While its process is gone (killed, or left
 * after its drain), nothing of it happens any more: no step ends, no tick, so no token, snapshot or
 * heartbeat (the stages learn of the loss by the silence, as live).
 */
export class WorkerHops implements WorkerEffects<Flight> {
  /** The step whose tokens are being counted: its number in its instance's log. */
  private step = -1;

  constructor(
    private readonly world: World,
    private readonly process: WorkerProcess,
    /** Each of the process's instances' step log, by rank. */
    private readonly steps: readonly StepTimes[],
  ) {}

  received(): void {}
  accepted(): void {}
  hung(): void {}
  admitted(): void {}
  preempted(): void {}
  cancelled(): void {}

  /** Its drain ran past the grace period: back to the gateway (one transit), which continues it elsewhere. */
  handedBack(instance: InstanceCore<Flight>, flight: Flight, atUs: Micros): void {
    this.world.gateway.migrateLater(flight, atUs + this.world.hops.transitUs, 'worker_draining', 'router', 'worker', instance.instanceId);
  }

  /** BLIS parity mode: the router's in-flight count drops at the completing step's start. */
  completing(instance: InstanceCore<Flight>, requestIds: readonly string[]): void {
    if (this.world.blis) completingNow(this.world, instance.instanceId, requestIds);
  }

  stepEnded(instance: InstanceCore<Flight>, _result: StepResult<Flight>, tokenUs: Micros): void {
    this.step = this.steps[instance.rank]!.push((tokenUs + this.world.hops.returnUs) / 1000);
  }

  tokens(_instance: InstanceCore<Flight>, flight: Flight, count: number): void {
    if (count !== 1) throw new Error(`a step gave ${flight.id} ${count} tokens: the twin counts at most one per step (StepTokens.count)`);
    countToken(flight, this.step);
  }

  completed(instance: InstanceCore<Flight>, flight: Flight, completion: WorkerCompletion, atUs: Micros): void {
    this.world.gateway.completed(flight, completion, atUs + this.world.hops.returnUs, instance.instanceId, this.steps[instance.rank]!);
  }

  failed(_instance: InstanceCore<Flight>, flight: Flight, reason: OutcomeReason, _message: string, atUs: Micros): void {
    this.world.gateway.fail(flight, atUs + this.world.hops.returnUs, reason, 'worker');
  }

  /**
   * The instance's done event reaches the router and flow control one transit later: every replica
   * of each (a replica that did not dispatch the request finds nothing to take off its books).
   */
  done(instance: InstanceCore<Flight>, flight: Flight, reason: OutcomeReason, atUs: Micros): void {
    const { world } = this;
    const done = { requestId: flight.id, instanceId: instance.instanceId, reason, atUs };
    world.queue.at(atUs + world.hops.transitUs, 'done', () => {
      world.gates.router.pass(() => {
        for (const router of world.router.replicas) router.onDone(done);
      });
      world.gates.flow.pass(() => {
        for (const flow of world.flow.replicas) flow.onDone(done, world.nowUs);
      });
    });
  }

  /** KV events feed each admission replica's prefix index at once, when it keeps one. */
  kv(instance: InstanceCore<Flight>, stored: readonly BlockId[], removed: readonly BlockId[], atUs: Micros): void {
    const { world } = this;
    const admission = world.admission.replicas;
    if (!admission.some((replica) => replica.wantsKvEvents)) return;
    const event = { instanceId: instance.instanceId, atUs, stored: [...stored], removed: [...removed] };
    world.gates.admission.pass(() => {
      for (const replica of admission) if (replica.wantsKvEvents) replica.onKv(event);
    });
  }

  /**
   * Snapshots reach every stage that follows them (every replica of each) at once: in the twin,
   * snapshot freshness is the interval alone, unless a bus fault on the load subject delays one (a
   * lagging signal) or drops it (never seen). One draw per snapshot: every replica gets the same
   * fate.
   */
  load(instance: InstanceCore<Flight>, snapshot: EngineSnapshot, atUs: Micros): void {
    const { world } = this;
    const { instanceId, workerId, rank } = instance.identity;
    const published = { ...snapshot, instanceId, workerId, rank, atUs };
    if (world.busFaults.active) {
      const verdict = world.busFaults.decide(subjects.workerLoad(instanceId));
      if (verdict?.drop) return;
      if (verdict && verdict.delayUs > 0) {
        world.queue.at(world.queue.nowUs + verdict.delayUs, 'snapshot', () => this.deliverLoad(published));
        return;
      }
    }
    this.deliverLoad(published);
  }

  /** Lifecycle events reach every replica of every stage. */
  lifecycle(instance: InstanceCore<Flight>, type: LifecycleEvent['type'], atUs: Micros): void {
    const { world } = this;
    const event: LifecycleEvent = { ...(instance.identity satisfies InstanceIdentity), type, atUs };
    world.gates.admission.pass(() => {
      for (const admission of world.admission.replicas) admission.onLifecycle(event);
    });
    world.gates.flow.pass(() => {
      for (const flow of world.flow.replicas) flow.onLifecycle(event, world.nowUs);
    });
    world.gates.router.pass(() => {
      for (const router of world.router.replicas) router.onLifecycle(event);
    });
  }

  wakeInstance(instance: InstanceCore<Flight>, kind: InstanceWakeUp, atUs: Micros): void {
    const { world, process } = this;
    if (kind === 'ready') {
      world.queue.at(atUs, 'workerReady', () => {
        if (process.state !== 'gone') instance.wake('ready', atUs);
      });
      return;
    }
    world.queue.at(atUs, 'stepEnd', () => {
      if (process.state === 'gone') return; // it died during the step: the step never ends
      instance.wake('step', atUs);
      if (world.checkInvariants) instance.checkInvariants();
      if (process.state === 'draining') process.stepped();
    });
  }

  wakeWorker(kind: WorkerWakeUp, atUs: Micros): void {
    const { world, process } = this;
    world.periodic(kind, atUs, () => {
      if (process.state === 'gone') return;
      // Requests without a record and nothing on the agenda that could move them: a bug, not a long wait.
      if (kind === 'snapshot' && !world.queue.hasWork) throw new TwinStalledError(world.records.outstanding, world.queue.nowUs);
      process.stage.wake(kind, atUs);
    });
  }

  private deliverLoad(published: LoadSnapshot): void {
    const { world } = this;
    world.gates.admission.pass(() => {
      for (const admission of world.admission.replicas) admission.onSnapshot(published);
    });
    world.gates.flow.pass(() => {
      for (const flow of world.flow.replicas) flow.onSnapshot(published, world.nowUs);
    });
    world.gates.router.pass(() => {
      for (const router of world.router.replicas) router.onSnapshot(published);
    });
  }
}
