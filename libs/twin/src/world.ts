import { micros, type BlockId, type InstanceIdentity, type LifecycleEvent, type Micros, type OutcomeReason, type Stage } from '@sluice/contracts';
import type { EngineSnapshot, StepResult } from '@sluice/engine';
import type { AdmissionDecision, ClusterView, DispatchCycleResult, RoutingDecision } from '@sluice/policies';
import type {
  AdmissionEffects,
  AdmissionStage,
  FlowArrival,
  FlowControlEffects,
  FlowControlStage,
  FlowEviction,
  FlowRelease,
  InstanceCore,
  InstanceWakeUp,
  RoutingEffects,
  RoutingStage,
  WorkerCompletion,
  WorkerEffects,
  WorkerStage,
  WorkerWakeUp,
} from '@sluice/stages';
import { ClientRecords, countToken } from './client-records.js';
import { EventQueue, type EventKind } from './event-queue.js';
import type { Flight } from './flight.js';
import type { HopLatencies } from './hops.js';
import { StepTimes } from './step-times.js';

/**
 * Everything the twin's stage cores act on: the agenda, the network as constant hop latencies,
 * and the client's records. Each stage gets an implementation of its effects port here (the
 * classes below), as each service has one on the bus: handing a request on is an event one hop
 * later at the next stage; an answer is the client's record one way back later; a signal reaches
 * the stages that follow it at once (done events after one transit). No stage rule lives here:
 * only when things arrive.
 */
export class World {
  readonly queue = new EventQueue();
  records: ClientRecords = new ClientRecords(0);
  /** Each instance's step log, by rank: when each step's tokens reach the client. */
  readonly stepTimes: StepTimes[] = [];
  admission!: AdmissionStage<Flight>;
  flow!: FlowControlStage<Flight>;
  router!: RoutingStage<Flight>;
  worker!: WorkerStage<Flight>;

  constructor(
    readonly hops: HopLatencies,
    /** Check each instance's invariants after each of its steps (tests). */
    readonly checkInvariants: boolean,
  ) {}

  get nowUs(): Micros {
    return micros(this.queue.nowUs);
  }

  /**
   * A stage's periodic chore, while any request has no record yet: recurring events never end a
   * run, and once every request has ended nothing asks for the next one.
   */
  periodic(kind: EventKind, atUs: Micros, run: () => void): void {
    this.queue.at(atUs, kind, () => {
      if (this.records.outstanding > 0) run();
    });
  }

  /** The client got an error answer: the stage's own time, then the way back. */
  answer(flight: Flight, stageUs: number, reason: OutcomeReason, stage: Stage): void {
    this.records.failed(flight, this.queue.nowUs + stageUs + this.hops.returnUs, reason, stage);
  }
}

export class AdmissionHops implements AdmissionEffects<Flight, undefined> {
  constructor(private readonly world: World) {}

  decided(_request: Flight, _carried: undefined, _policy: string, _decision: AdmissionDecision): void {}

  handOn(flight: Flight): void {
    const { world } = this;
    const { admissionUs, transitUs } = world.hops;
    flight.timings.admissionMs = admissionUs / 1000;
    world.queue.at(world.queue.nowUs + admissionUs + transitUs, 'flow', () => world.flow.submit(flight, world.nowUs, undefined));
  }

  reject(flight: Flight, _carried: undefined, reason: OutcomeReason): void {
    this.world.answer(flight, this.world.hops.admissionUs, reason, 'admission');
  }

  /** The twin's flow controller is never absent, so nothing is handed back; if it were, the request ends as the live gateway's would when re-submission fails. */
  handBack(flight: Flight): void {
    this.world.answer(flight, this.world.hops.admissionUs, 'flow_unavailable', 'admission');
  }

  instancesLost(_instanceIds: readonly string[]): void {}
}

export class FlowHops implements FlowControlEffects<Flight, undefined> {
  constructor(private readonly world: World) {}

  arrived(_request: Flight, _carried: undefined, _arrival: FlowArrival): void {}

  handOn(flight: Flight, _carried: undefined, _release: FlowRelease): void {
    const { world } = this;
    world.queue.at(world.queue.nowUs + world.hops.flowUs + world.hops.transitUs, 'route', () => world.router.route(flight, world.nowUs, undefined));
  }

  reject(flight: Flight, _carried: undefined, reason: OutcomeReason): void {
    this.world.answer(flight, this.world.hops.flowUs, reason, 'flow');
  }

  /** Dropped from the queue by a wake-up, not while handling the request: no processing hop. */
  evict(flight: Flight, _carried: undefined, reason: FlowEviction): void {
    this.world.answer(flight, 0, reason, 'flow');
  }

  /** The twin's router is never absent and its flow controller never shuts down mid-run (see AdmissionHops.handBack). */
  handBack(flight: Flight): void {
    this.world.answer(flight, this.world.hops.flowUs, 'router_unavailable', 'flow');
  }

  cycleStarted(): void {}

  cycleFinished(_result: DispatchCycleResult): void {}
}

export class RouterHops implements RoutingEffects<Flight, undefined> {
  constructor(private readonly world: World) {}

  decided(_request: Flight, _carried: undefined, _policy: string, _decision: RoutingDecision | null, _view: ClusterView): void {}

  handOn(flight: Flight, _carried: undefined, instanceId: string): void {
    const { world } = this;
    const { routerUs, transitUs } = world.hops;
    const instance = world.worker.instance(instanceId)!;
    flight.timings.routingMs = routerUs / 1000;
    flight.servedBy = instance.rank;
    world.queue.at(world.queue.nowUs + routerUs + transitUs, 'workerArrive', () => instance.accept(flight, world.nowUs));
  }

  reject(flight: Flight, _carried: undefined, reason: OutcomeReason): void {
    this.world.answer(flight, this.world.hops.routerUs, reason, 'router');
  }

  instanceJoined(_instanceId: string, _workerId: string): void {}

  instanceLost(_instanceId: string, _held: readonly Flight[]): void {}
}

export class WorkerHops implements WorkerEffects<Flight> {
  /** The step whose tokens are being counted: its number in its instance's log. */
  private step = -1;

  constructor(private readonly world: World) {}

  received(): void {}
  accepted(): void {}
  hung(): void {}
  admitted(): void {}
  preempted(): void {}
  cancelled(): void {}

  /** The twin's workers never drain mid-run; if one did, its requests would end as lost. */
  handedBack(_instance: InstanceCore<Flight>, flight: Flight, atUs: Micros): void {
    this.world.records.failed(flight, atUs + this.world.hops.returnUs, 'worker_lost', 'worker');
  }

  stepEnded(instance: InstanceCore<Flight>, _result: StepResult<Flight>, tokenUs: Micros): void {
    this.step = this.world.stepTimes[instance.rank]!.push((tokenUs + this.world.hops.returnUs) / 1000);
  }

  tokens(_instance: InstanceCore<Flight>, flight: Flight, count: number): void {
    if (count !== 1) throw new Error(`a step gave ${flight.id} ${count} tokens: the twin counts at most one per step (StepTokens.count)`);
    countToken(flight, this.step);
  }

  completed(instance: InstanceCore<Flight>, flight: Flight, completion: WorkerCompletion, atUs: Micros): void {
    const stepTimes = this.world.stepTimes[instance.rank]!;
    this.world.records.completed(flight, completion, atUs + this.world.hops.returnUs, instance.instanceId, stepTimes);
  }

  failed(_instance: InstanceCore<Flight>, flight: Flight, reason: OutcomeReason, _message: string, atUs: Micros): void {
    this.world.records.failed(flight, atUs + this.world.hops.returnUs, reason, 'worker');
  }

  /** The instance's done event reaches the router and flow control one transit later. */
  done(instance: InstanceCore<Flight>, flight: Flight, reason: OutcomeReason, atUs: Micros): void {
    const { world } = this;
    const done = { requestId: flight.id, instanceId: instance.instanceId, reason, atUs };
    world.queue.at(atUs + world.hops.transitUs, 'done', () => {
      world.router.onDone(done);
      world.flow.onDone(done, world.nowUs);
    });
  }

  /** KV events feed admission's prefix index at once, when it keeps one. */
  kv(instance: InstanceCore<Flight>, stored: readonly BlockId[], removed: readonly BlockId[], atUs: Micros): void {
    if (this.world.admission.wantsKvEvents) this.world.admission.onKv({ instanceId: instance.instanceId, atUs, stored: [...stored], removed: [...removed] });
  }

  /** Snapshots reach every stage that follows them at once: in the twin, snapshot freshness is the interval alone. */
  load(instance: InstanceCore<Flight>, snapshot: EngineSnapshot, atUs: Micros): void {
    const { world } = this;
    const { instanceId, workerId, rank } = instance.identity;
    const published = { ...snapshot, instanceId, workerId, rank, atUs };
    world.admission.onSnapshot(published);
    world.flow.onSnapshot(published, world.nowUs);
    world.router.onSnapshot(published);
  }

  lifecycle(instance: InstanceCore<Flight>, type: LifecycleEvent['type'], atUs: Micros): void {
    const { world } = this;
    const event: LifecycleEvent = { ...(instance.identity satisfies InstanceIdentity), type, atUs };
    world.admission.onLifecycle(event);
    world.flow.onLifecycle(event, world.nowUs);
    world.router.onLifecycle(event);
  }

  wakeInstance(instance: InstanceCore<Flight>, kind: InstanceWakeUp, atUs: Micros): void {
    const { world } = this;
    if (kind === 'ready') {
      world.queue.at(atUs, 'workerReady', () => instance.wake('ready', atUs));
      return;
    }
    world.queue.at(atUs, 'stepEnd', () => {
      instance.wake('step', atUs);
      if (world.checkInvariants) instance.checkInvariants();
    });
  }

  wakeWorker(kind: WorkerWakeUp, atUs: Micros): void {
    const { world } = this;
    world.periodic(kind, atUs, () => {
      // Requests without a record and nothing on the agenda that could move them: a bug, not a long wait.
      if (kind === 'snapshot' && !world.queue.hasWork) throw new TwinStalledError(world.records.outstanding, world.queue.nowUs);
      world.worker.wake(kind, atUs);
    });
  }
}

/** The twin found requests that nothing on its agenda could ever end (an invariant broken). */
export class TwinStalledError extends Error {
  override readonly name = 'TwinStalledError';
  constructor(outstanding: number, atUs: number) {
    super(`${outstanding} requests can never end: nothing left on the agenda at ${(atUs / 1e6).toFixed(3)} s of virtual time`);
  }
}

/** New step logs for `count` instances. */
export function stepLogs(count: number): StepTimes[] {
  return Array.from({ length: count }, () => new StepTimes());
}
