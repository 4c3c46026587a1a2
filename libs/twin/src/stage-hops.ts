import type { OutcomeReason } from '@sluice/contracts';
import type { AdmissionDecision, ClusterView, DispatchCycleResult, RoutingDecision } from '@sluice/policies';
import type { AdmissionEffects, FlowArrival, FlowControlEffects, FlowEviction, FlowRelease, HandBack, HandoffFailure, RoutingEffects } from '@sluice/stages';
import type { Flight } from './flight.js';
import { readLiveSignals } from './blis-signals.js';
import type { TwinInstance, World } from './world.js';

/*
 * Each replica of a stage has its own effects, named by its index in the stage's queue group:
 * what comes back to the stage about a request it handed on (a refused handoff, an ack that never
 * came) reaches the replica that sent it, as live; a handoff to the next stage reaches whichever
 * replica of it the group picks.
 */

/** Admission's effects on the twin's agenda. */
export class AdmissionHops implements AdmissionEffects<Flight, undefined> {
  constructor(
    private readonly world: World,
    private readonly replica: number,
  ) {}

  decided(_request: Flight, _carried: undefined, _policy: string, _decision: AdmissionDecision): void {}

  handOn(flight: Flight): void {
    const { world } = this;
    flight.timings.admissionMs = world.hops.admissionUs / 1000;
    world.handOff(
      flight,
      'flow',
      world.queue.nowUs + world.hops.admissionUs,
      () => world.flow.pick().submit(flight, world.nowUs, undefined),
      // Flow control never acked: admission hears so at its ack timeout (if not paused itself).
      () => world.gates.admission.timer(() => world.admission.at(this.replica).handoffRefused(flight, undefined, 'flow control did not ack in time', 'timeout')),
    );
  }

  reject(flight: Flight, _carried: undefined, reason: OutcomeReason): void {
    this.world.answer(flight, this.world.hops.admissionUs, reason, 'admission');
  }

  /** Flow control did not take it: back to the gateway (one transit), which re-submits it to flow control. */
  handBack(flight: Flight, _carried: undefined, back: HandBack): void {
    this.world.gateway.migrateLater(flight, this.world.queue.nowUs + this.world.hops.transitUs, back.reason, back.resumeAt, 'admission');
  }

  instancesLost(_instanceIds: readonly string[]): void {}
}

/** Flow control's effects on the twin's agenda. */
export class FlowHops implements FlowControlEffects<Flight, undefined> {
  constructor(
    private readonly world: World,
    private readonly replica: number,
  ) {}

  arrived(_request: Flight, _carried: undefined, _arrival: FlowArrival): void {}

  handOn(flight: Flight, _carried: undefined, _release: FlowRelease): void {
    const { world } = this;
    world.observer?.flowReleased?.(this.replica, flight.id, flight.priority, world.queue.nowUs);
    world.handOff(
      flight,
      'router',
      world.queue.nowUs + world.hops.flowUs,
      () => {
        const router = world.router.pick();
        if (world.blis) readLiveSignals(world, router);
        router.route(flight, world.nowUs, undefined);
      },
      () => world.gates.flow.timer(() => world.flow.at(this.replica).handoffRefused(flight, undefined, 'the router did not ack in time', 'timeout')),
    );
  }

  reject(flight: Flight, _carried: undefined, reason: OutcomeReason): void {
    this.world.answer(flight, this.world.hops.flowUs, reason, 'flow');
  }

  /** Dropped from the queue by a wake-up, not while handling the request: no processing hop. */
  evict(flight: Flight, _carried: undefined, reason: FlowEviction): void {
    this.world.answer(flight, 0, reason, 'flow');
  }

  /** The router did not take it: back to the gateway (one transit), which re-submits it to the router. */
  handBack(flight: Flight, _carried: undefined, back: HandBack): void {
    this.world.gateway.migrateLater(flight, this.world.queue.nowUs + this.world.hops.transitUs, back.reason, back.resumeAt, 'flow');
  }

  cycleStarted(): void {}

  cycleFinished(_result: DispatchCycleResult): void {}

  /** The twin keeps no per-flow series. */
  flowsForgotten(): void {}
}

/** The router's effects on the twin's agenda. */
export class RouterHops implements RoutingEffects<Flight, undefined> {
  constructor(
    private readonly world: World,
    private readonly replica: number,
  ) {}

  decided(_request: Flight, _carried: undefined, _policy: string, _decision: RoutingDecision | null, _view: ClusterView): void {}

  handOn(flight: Flight, _carried: undefined, instanceId: string): void {
    const { world } = this;
    const instance = world.instances.get(instanceId)!;
    flight.timings.routingMs = world.hops.routerUs / 1000;
    flight.servedBy = instance.index;
    world.handOff(
      flight,
      'worker',
      world.queue.nowUs + world.hops.routerUs,
      () => this.reach(instance, flight),
      () => world.gates.router.timer(() => this.refused(flight, instanceId, `instance ${instanceId} did not ack in time`, 'timeout')),
      instanceId,
    );
  }

  reject(flight: Flight, _carried: undefined, reason: OutcomeReason): void {
    this.world.answer(flight, this.world.hops.routerUs, reason, 'router');
  }

  /** Every instance absent or silent: back to the gateway (one transit), which routes it again a moment later. */
  handBack(flight: Flight, _carried: undefined, back: HandBack): void {
    this.world.gateway.migrateLater(flight, this.world.queue.nowUs + this.world.hops.transitUs, back.reason, back.resumeAt, 'router');
  }

  instanceJoined(_instanceId: string, _workerId: string): void {}

  /** Each request the lost instance held (of those this replica dispatched): a migrate frame to the gateway, one transit later. */
  instanceLost(instanceId: string, held: readonly Flight[]): void {
    const { world } = this;
    for (const flight of held) world.gateway.migrateLater(flight, world.queue.nowUs + world.hops.transitUs, 'worker_lost', 'router', 'worker', instanceId);
  }

  /**
   * The request reaches its instance. An instance whose process is gone (crashed, or left after
   * its drain) or draining (it stopped listening) has no responder: the router hears so one
   * transit later and routes the request elsewhere.
   */
  private reach(instance: TwinInstance, flight: Flight): void {
    const { world } = this;
    if (instance.process.state === 'up') {
      instance.core.accept(flight, world.nowUs);
      return;
    }
    const message = `no responders on instance ${instance.core.instanceId} (its process is ${instance.process.state})`;
    world.queue.at(world.queue.nowUs + world.hops.transitUs, 'route', () => world.gates.router.pass(() => this.refused(flight, instance.core.instanceId, message, 'no_responders')));
  }

  private refused(flight: Flight, instanceId: string, message: string, why: HandoffFailure): void {
    this.world.router.at(this.replica).handoffRefused(flight, undefined, instanceId, message, this.world.nowUs, why);
  }
}
