import type { OutcomeReason } from '@sluice/contracts';
import type { AdmissionDecision } from '@sluice/policies';
import type { AdmissionEffects, HandBack, HandoffFailure } from '@sluice/stages';
import type { Flight } from './flight.js';
import type { TwinNetwork } from './network.js';
import type { TwinObserver } from './observer.js';
import type { GatewayInbox } from './ports.js';

/** What one admission replica's hops reach: the flow-control door, its gateway's inbox, and its own core (a handoff never acked). */
export interface AdmissionWiring {
  readonly network: TwinNetwork;
  readonly inbox: GatewayInbox;
  readonly toFlow: (flight: Flight) => void;
  readonly refused: (flight: Flight, message: string, why: HandoffFailure) => void;
  readonly observer: TwinObserver | undefined;
}

/** One admission replica's effects on the twin's agenda. */
export class AdmissionHops implements AdmissionEffects<Flight, undefined> {
  constructor(private readonly wiring: AdmissionWiring) {}

  decided(flight: Flight, _carried: undefined, policy: string, decision: AdmissionDecision): void {
    this.wiring.observer?.admissionDecided?.(flight.id, policy, decision, this.wiring.network.queue.nowUs);
  }

  handOn(flight: Flight): void {
    const { network, toFlow, refused } = this.wiring;
    flight.timings.admissionMs = flight.hops.admissionUs / 1000;
    network.handOff(
      flight,
      'flow',
      network.queue.nowUs + flight.hops.admissionUs,
      () => toFlow(flight),
      // Flow control never acked: admission hears so at its ack timeout (if not paused itself).
      () => network.gates.admission.timer(() => refused(flight, 'flow control did not ack in time', 'timeout')),
    );
  }

  /** Its error frame reaches the gateway after admission's own time. */
  reject(flight: Flight, _carried: undefined, reason: OutcomeReason, message: string): void {
    const { network, inbox } = this.wiring;
    inbox.error(flight, reason, message, 'admission', network.frameAtGatewayUs(network.queue.nowUs + flight.hops.admissionUs));
  }

  /** Flow control did not take it: back to the gateway, which re-submits it to flow control. */
  handBack(flight: Flight, _carried: undefined, back: HandBack): void {
    const { network, inbox } = this.wiring;
    inbox.migrate(flight, back.reason, back.resumeAt, 'admission', 'admission', network.queue.nowUs + network.hops.transitUs);
  }

  instancesLost(_instanceIds: readonly string[]): void {}
}
