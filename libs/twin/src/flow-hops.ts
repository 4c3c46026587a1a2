import type { FlowQueueBand, FlowQueueReport, Micros, OutcomeReason } from '@sluice/contracts';
import type { DispatchCycleResult } from '@sluice/policies';
import type { FlowArrival, FlowControlEffects, FlowEviction, FlowRelease, HandBack, HandoffFailure } from '@sluice/stages';
import type { Flight } from './flight.js';
import type { TwinNetwork } from './network.js';
import type { TwinObserver } from './observer.js';
import type { GatewayInbox } from './ports.js';

/** What one flow-control replica's hops reach: the router door, its gateway's inbox, its own core, and who observes its releases. */
export interface FlowWiring {
  readonly network: TwinNetwork;
  readonly inbox: GatewayInbox;
  readonly toRouter: (flight: Flight) => void;
  readonly refused: (flight: Flight, message: string, why: HandoffFailure) => void;
  /** This replica's index in its queue group (what an observer is told). */
  readonly replica: number;
  readonly observer: TwinObserver | undefined;
  /** Where its queue reports go: every admission replica (at once, as snapshots do in the twin). */
  readonly queueReported: (report: FlowQueueReport) => void;
}

/** One flow-control replica's effects on the twin's agenda. */
export class FlowHops implements FlowControlEffects<Flight, undefined> {
  constructor(private readonly wiring: FlowWiring) {}

  arrived(_request: Flight, _carried: undefined, _arrival: FlowArrival): void {}

  handOn(flight: Flight, _carried: undefined, _release: FlowRelease): void {
    const { network, toRouter, refused, observer, replica } = this.wiring;
    observer?.flowReleased?.(replica, flight.id, flight.priority, network.queue.nowUs);
    network.handOff(
      flight,
      'router',
      network.queue.nowUs + flight.hops.flowUs,
      () => toRouter(flight),
      () => network.gates.flow.timer(() => refused(flight, 'the router did not ack in time', 'timeout')),
    );
  }

  /** Refused on arrival: its error frame reaches the gateway after flow control's own time. */
  reject(flight: Flight, _carried: undefined, reason: OutcomeReason, message: string): void {
    const { network, inbox } = this.wiring;
    inbox.error(flight, reason, message, 'flow', network.frameAtGatewayUs(network.queue.nowUs + flight.hops.flowUs));
  }

  /** Dropped from the queue by a wake-up, not while handling the request: no processing hop. */
  evict(flight: Flight, _carried: undefined, reason: FlowEviction, message: string): void {
    const { network, inbox } = this.wiring;
    inbox.error(flight, reason, message, 'flow', network.frameAtGatewayUs(network.queue.nowUs));
  }

  /** The router did not take it: back to the gateway, which re-submits it to the router. */
  handBack(flight: Flight, _carried: undefined, back: HandBack): void {
    const { network, inbox } = this.wiring;
    inbox.migrate(flight, back.reason, back.resumeAt, 'flow', 'flow', network.queue.nowUs + network.hops.transitUs);
  }

  queueReported(atUs: Micros, bands: readonly FlowQueueBand[]): void {
    this.wiring.queueReported({ processId: `flow-${this.wiring.replica}`, atUs, bands: [...bands] });
  }

  cycleStarted(): void {}

  cycleFinished(_result: DispatchCycleResult): void {}

  /** The twin keeps no per-flow series. */
  flowsForgotten(): void {}
}
