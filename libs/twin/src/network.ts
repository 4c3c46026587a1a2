import { micros, subjects, type Micros } from '@sluice/contracts';
import { BusFaultTable } from './chaos/bus-fault-table.js';
import { StageGate } from './chaos/stage-gate.js';
import { EventQueue, type EventKind } from './event-queue.js';
import type { Flight } from './flight.js';
import { frameToGatewayUs, transitIntoUs, type HopLatencies, type SubmitHop } from './hops.js';

export type { SubmitHop } from './hops.js';

const ARRIVAL_KIND: Record<SubmitHop, EventKind> = { admission: 'admit', flow: 'flow', router: 'route', worker: 'workerArrive' };

/**
 * What stands between the twin's processes, as NATS and the machine do live: the agenda (time),
 * constant hop latencies, the bus faults a scenario sets on a subject, and the stage processes a
 * scenario can pause. A handoff is an event one transit later at the receiver, unless a fault
 * drops it (the sender then hears no ack) or the receiver is paused (it waits). Knows nothing of
 * what the processes do.
 */
export class TwinNetwork {
  readonly queue = new EventQueue();
  /**
   * The stage processes a scenario can pause (nothing else is paused in the twin). One gate per
   * stage, shared by its replicas: a fault on a stage holds every replica of it.
   */
  readonly gates = { admission: new StageGate(), flow: new StageGate(), router: new StageGate() } as const;
  readonly busFaults: BusFaultTable;

  constructor(
    readonly hops: HopLatencies,
    /** How long a sender waits for an ack before it counts its handoff as lost (nats.ackTimeoutMs). */
    readonly ackTimeoutUs: number,
    /** The seeded source of bus fault decisions. */
    busRandom: () => number,
    /** Requests without a record yet: periodic chores stop when none is left. */
    private readonly outstanding: () => number,
  ) {
    this.busFaults = new BusFaultTable(busRandom);
  }

  get nowUs(): Micros {
    return micros(this.queue.nowUs);
  }

  /** When an error or end frame a stage or an instance sent at `sentUs` reaches the gateway. */
  frameAtGatewayUs(sentUs: number): number {
    return sentUs + frameToGatewayUs(this.hops);
  }

  /**
   * A stage's periodic chore, while any request has no record yet: recurring events never end a
   * run, and once every request has ended nothing asks for the next one.
   */
  periodic(kind: EventKind, atUs: Micros, run: () => void): void {
    this.queue.at(atUs, kind, () => {
      if (this.outstanding() > 0) run();
    });
  }

  /**
   * A request sent to the next process at `sendUs`: it arrives one transit later, plus any delay a
   * bus fault on its subject adds, and `deliver` runs there, when the receiving stage is not
   * paused, unless the gateway has let this attempt go by then (a stale copy is not served). A
   * dropped message never arrives: the sender hears no ack, and `lost` runs at its ack timeout.
   */
  handOff(flight: Flight, to: SubmitHop, sendUs: number, deliver: () => void, lost: () => void, instanceId?: string): void {
    let arriveUs = sendUs + transitIntoUs(flight.hops, to);
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
