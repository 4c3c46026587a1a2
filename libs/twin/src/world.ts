import { micros, subjects, type Micros, type OutcomeReason, type Stage } from '@sluice/contracts';
import type { AdmissionStage, FlowControlStage, InstanceCore, RoutingStage } from '@sluice/stages';
import { BusFaultTable } from './chaos/bus-fault-table.js';
import { StageGate } from './chaos/stage-gate.js';
import { ClientRecords } from './client-records.js';
import { EventQueue, type EventKind } from './event-queue.js';
import type { Flight } from './flight.js';
import type { TwinGateway } from './gateway.js';
import type { HopLatencies } from './hops.js';
import type { TwinObserver } from './observer.js';
import type { QueueGroup } from './queue-group.js';
import type { StepTimes } from './step-times.js';
import type { WorkerProcess } from './worker-process.js';

/** One instance of the twin: its core, the worker process hosting it, its place among all instances, its step log. */
export interface TwinInstance {
  readonly core: InstanceCore<Flight>;
  readonly process: WorkerProcess;
  /** Its index in `World.instanceList` (what a flight's `servedBy` holds). */
  readonly index: number;
  readonly steps: StepTimes;
}

/** The hops a request takes from one process to the next, each named by the stage it reaches. */
export type SubmitHop = 'admission' | 'flow' | 'router' | 'worker';

const ARRIVAL_KIND: Record<SubmitHop, EventKind> = { admission: 'admit', flow: 'flow', router: 'route', worker: 'workerArrive' };

/**
 * Everything the twin's stage cores act on: the agenda, the network as constant hop latencies,
 * the worker processes and their instances, the gateway (which writes the client's records), and
 * the chaos a scenario brings (paused stages, bus faults). Each stage gets an implementation of
 * its effects port (stage-hops.ts, worker-hops.ts), as each service has one on the bus: handing a
 * request on is an event one hop later at the next stage; an answer is the client's record one
 * way back later; a signal reaches the stages that follow it at once (done events after one
 * transit). No stage rule lives here: only when things arrive.
 */
export class World {
  readonly queue = new EventQueue();
  records: ClientRecords = new ClientRecords(0);
  /** Every instance of every worker process, in the order the processes were started. */
  readonly instanceList: TwinInstance[] = [];
  readonly instances = new Map<string, TwinInstance>();
  readonly processes: WorkerProcess[] = [];
  /** Each stage's replicas behind its queue group (`<stage>.replicas` of the config; one by default). */
  admission!: QueueGroup<AdmissionStage<Flight>>;
  flow!: QueueGroup<FlowControlStage<Flight>>;
  router!: QueueGroup<RoutingStage<Flight>>;
  gateway!: TwinGateway;
  /**
   * The stage processes a scenario can pause (nothing else is paused in the twin). One gate per
   * stage, shared by its replicas: a fault on a stage holds every replica of it.
   */
  readonly gates = { admission: new StageGate(), flow: new StageGate(), router: new StageGate() } as const;
  readonly busFaults: BusFaultTable;
  /**
   * BLIS parity mode (docs/behaviour.md §1): the router reads each instance live before each
   * decision, and a request leaves its instance's in-flight count at its completing step's start.
   */
  blis = false;
  /** Who hears the decisions the stages report (tests, studies); live they become spans and metrics. */
  observer: TwinObserver | undefined;

  constructor(
    readonly hops: HopLatencies,
    /** Check each instance's invariants after each of its steps (tests). */
    readonly checkInvariants: boolean,
    /** How long a sender waits for an ack before it counts its handoff as lost (nats.ackTimeoutMs). */
    readonly ackTimeoutUs: number,
    /** The seeded source of bus fault decisions. */
    busRandom: () => number,
  ) {
    this.busFaults = new BusFaultTable(busRandom);
  }

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
    this.gateway.fail(flight, this.queue.nowUs + stageUs + this.hops.returnUs, reason, stage);
  }

  addInstance(core: InstanceCore<Flight>, process: WorkerProcess, steps: StepTimes): TwinInstance {
    const instance = { core, process, index: this.instanceList.length, steps };
    this.instanceList.push(instance);
    this.instances.set(core.instanceId, instance);
    return instance;
  }

  /**
   * A request sent to the next process at `sendUs`: it arrives one transit later, plus any delay a
   * bus fault on its subject adds, and `deliver` runs there, when the receiving stage is not
   * paused, unless the gateway has let this attempt go by then (a stale copy is not served). A
   * dropped message never arrives: the sender hears no ack, and `lost` runs at its ack timeout.
   */
  handOff(flight: Flight, to: SubmitHop, sendUs: number, deliver: () => void, lost: () => void, instanceId?: string): void {
    let arriveUs = sendUs + this.hops.transitUs;
    if (this.busFaults.active) {
      const verdict = this.busFaults.decide(submitSubject(to, instanceId));
      if (verdict?.drop) {
        this.queue.at(sendUs + this.ackTimeoutUs, 'ackTimeout', lost);
        return;
      }
      if (verdict) arriveUs += verdict.delayUs;
    }
    const gate = to === 'worker' ? undefined : this.gates[to];
    this.queue.at(arriveUs, ARRIVAL_KIND[to], () => {
      if (gate?.paused) {
        gate.defer(() => {
          if (!flight.settled) deliver();
        });
      } else if (!flight.settled) deliver();
    });
  }
}

function submitSubject(to: SubmitHop, instanceId: string | undefined): string {
  switch (to) {
    case 'admission':
      return subjects.admissionSubmit();
    case 'flow':
      return subjects.flowSubmit();
    case 'router':
      return subjects.routerSubmit();
    case 'worker':
      return subjects.workerSubmit(instanceId ?? '');
  }
}

/** The twin found requests that nothing on its agenda could ever end (an invariant broken). */
export class TwinStalledError extends Error {
  override readonly name = 'TwinStalledError';
  constructor(outstanding: number, atUs: number) {
    super(`${outstanding} requests can never end: nothing left on the agenda at ${(atUs / 1e6).toFixed(3)} s of virtual time`);
  }
}
