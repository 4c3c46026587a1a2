import type { OutcomeReason } from '@sluice/contracts';
import type { ClusterView, RoutingDecision } from '@sluice/policies';
import type { BusyCount, HandBack, HandoffFailure, PdPlacementInfo, RoutingEffects } from '@sluice/stages';
import type { Flight } from './flight.js';
import type { TwinNetwork } from './network.js';
import type { TwinObserver } from './observer.js';
import type { GatewayInbox } from './ports.js';
import type { TwinInstance, WorkerFleet } from './worker-fleet.js';

/** What one router replica's hops reach: the worker instances, its gateway's inbox, and its own core (a handoff refused). */
export interface RouterWiring {
  readonly network: TwinNetwork;
  readonly inbox: GatewayInbox;
  readonly workers: WorkerFleet;
  readonly refused: (flight: Flight, instanceId: string, message: string, why: HandoffFailure) => void;
  /** Hears each decision (a decision trace); absent, a decision costs nothing more. */
  readonly observer?: TwinObserver | undefined;
}

/** One router replica's effects on the twin's agenda. */
export class RouterHops implements RoutingEffects<Flight, undefined> {
  constructor(private readonly wiring: RouterWiring) {}

  /** The decision, to whoever observes the run (live, it becomes the decision's span). */
  decided(flight: Flight, _carried: undefined, policy: string, decision: RoutingDecision | null, view: ClusterView, _busy?: BusyCount, pd?: PdPlacementInfo): void {
    this.wiring.observer?.routingDecided?.(flight, policy, decision, view, this.wiring.network.queue.nowUs, pd);
  }

  handOn(flight: Flight, _carried: undefined, instanceId: string, prefillInstanceId?: string): void {
    const { network, workers, refused } = this.wiring;
    const instance = workers.instances.get(instanceId)!;
    flight.prefillInstanceId = prefillInstanceId;
    flight.timings.routingMs = flight.hops.routerUs / 1000;
    flight.servedBy = instance.index;
    network.handOff(
      flight,
      'worker',
      network.queue.nowUs + flight.hops.routerUs,
      () => this.reach(instance, flight),
      () => network.gates.router.timer(() => refused(flight, instanceId, `instance ${instanceId} did not ack in time`, 'timeout')),
      instanceId,
    );
  }

  /** Its error frame reaches the gateway after the router's own time. */
  reject(flight: Flight, _carried: undefined, reason: OutcomeReason, message: string): void {
    const { network, inbox } = this.wiring;
    inbox.error(flight, reason, message, 'router', network.frameAtGatewayUs(network.queue.nowUs + flight.hops.routerUs));
  }

  /** Every instance absent or silent: back to the gateway, which routes it again a moment later. */
  handBack(flight: Flight, _carried: undefined, back: HandBack): void {
    const { network, inbox } = this.wiring;
    inbox.migrate(flight, back.reason, back.resumeAt, 'router', 'router', network.queue.nowUs + network.hops.transitUs);
  }

  instanceJoined(_instanceId: string, _workerId: string): void {}

  /** Each request the lost instance held (of those this replica dispatched): a migrate frame to the gateway, one transit later. */
  instanceLost(instanceId: string, held: readonly Flight[]): void {
    const { network, inbox } = this.wiring;
    for (const flight of held) inbox.migrate(flight, 'worker_lost', 'router', 'worker', instanceId, network.queue.nowUs + network.hops.transitUs);
  }

  /**
   * The request reaches its instance. An instance whose process is gone (crashed, or left after
   * its drain) or draining (it stopped listening) has no responder, nor has an instance an
   * autoscaler parked, is still starting or is draining (it listens only while ready): the router
   * hears so one transit later and routes the request elsewhere.
   */
  private reach(instance: TwinInstance, flight: Flight): void {
    const { network, refused } = this.wiring;
    const { instanceId } = instance.core;
    if (instance.process.takesWork(instanceId)) {
      instance.core.accept(flight, network.nowUs);
      return;
    }
    const why = instance.process.state === 'up' ? `the instance is ${instance.process.stage.slots.stateOf(instanceId)}` : `its process is ${instance.process.state}`;
    const message = `no responders on instance ${instanceId} (${why})`;
    network.queue.at(network.queue.nowUs + network.hops.transitUs, 'route', () => network.gates.router.pass(() => refused(flight, instanceId, message, 'no_responders')));
  }
}
