import { seedOf, seededRandom } from '@sluice/collections';
import { micros, type CancelRequest, type FlowQueueReport, type KvEvent, type LifecycleEvent, type LoadSnapshot, type Micros, type RequestDone } from '@sluice/contracts';
import type { EngineCompat } from '@sluice/engine';
import { configuredBusyThresholds, createFlowControlRegistry, createRoutingRegistry, type StepCoefficients } from '@sluice/policies';
import {
  AdmissionStage,
  FlowControlStage,
  RoutingStage,
  admissionSettingsFrom,
  flowControlSettingsFrom,
  routingSettingsFrom,
  type AdmissionConfig,
  type FlowControllerConfig,
  type RouterConfig,
} from '@sluice/stages';
import { AdmissionHops } from './admission-hops.js';
import { readLiveSignals } from './blis-signals.js';
import type { Flight } from './flight.js';
import { FlowHops } from './flow-hops.js';
import type { TwinNetwork } from './network.js';
import type { TwinObserver } from './observer.js';
import type { GatewayInbox, StageDoors, WorkerSignals } from './ports.js';
import { QueueGroup } from './queue-group.js';
import { RouterHops } from './router-hops.js';
import type { WorkerFleet } from './worker-fleet.js';

/** `<stage>.replicas` of sluice.yaml: the processes behind the stage's queue group (absent: 1). */
export interface Replicated {
  readonly replicas?: number;
}

/** What the stage replicas are built from: the config's sections, as the services read them. */
export interface StageGroupsConfig {
  readonly models: readonly string[];
  readonly admission: AdmissionConfig & Replicated;
  readonly flowController: FlowControllerConfig & Replicated;
  readonly router: RouterConfig & Replicated;
  /** The run's seed: routing tie-breaks and the queue groups' picks derive from it. */
  readonly seed: number;
  readonly compat: EngineCompat;
  /** The served models' step coefficients (the instances' profile), for admission's predictions. */
  readonly stepCoefficients?: Readonly<Record<string, StepCoefficients>>;
}

/** What the stages reach: the network, the gateway's inbox (answers), the worker instances (routing), who observes. */
export interface StageGroupsWiring {
  readonly network: TwinNetwork;
  readonly inbox: GatewayInbox;
  readonly workers: WorkerFleet;
  readonly observer: TwinObserver | undefined;
  /** Hears every flow-control queue report besides the admission replicas (the autoscaler, when one runs). */
  readonly queueListener?: ((report: FlowQueueReport) => void) | undefined;
}

/**
 * The admission, flow-control and routing replicas behind their queue groups (docs/twin.md, "Stage
 * replicas"), each core with its own settings, effects and wake-ups, as each live replica is a
 * process of its own; their timers pass their stage's gate (a pause holds every replica). Built
 * downstream first, so each stage's hops are given the door of the stage after it. Replica 0 is
 * built exactly as the single stage always was, so a run with one replica of each is the run it
 * was. What the workers report reaches every replica of each stage that follows it (`WorkerSignals`).
 */
export class StageGroups implements WorkerSignals {
  readonly admission: QueueGroup<AdmissionStage<Flight>>;
  readonly flow: QueueGroup<FlowControlStage<Flight>>;
  readonly router: QueueGroup<RoutingStage<Flight>>;
  /** Where the gateway's handoffs arrive. */
  readonly doors: StageDoors;
  private readonly network: TwinNetwork;
  /** BLIS mode: KV events reach the routers without a transit. */
  private readonly kvAtOnce: boolean;
  private readonly queueListener: ((report: FlowQueueReport) => void) | undefined;

  constructor(config: StageGroupsConfig, wiring: StageGroupsWiring) {
    const { network, inbox, workers, observer } = wiring;
    this.network = network;
    this.queueListener = wiring.queueListener;
    const { seed } = config;
    const groupRandom = (stage: string) => seededRandom(seedOf(`queue-group/${stage}/${seed}`));
    const count = (section: Replicated) => section.replicas ?? 1;
    const blis = config.compat === 'blis';
    this.kvAtOnce = blis;

    // The routers filter by the configured busy thresholds, as live ones do before admission announces a change.
    const configured = routingSettingsFrom(config.router, 0, configuredBusyThresholds(config.admission.policies));
    // BLIS mode reads signals live before each decision (blis-signals.ts): they must be visible at once.
    const routing = blis ? { ...configured, snapshotRefreshIntervalUs: micros(0) } : configured;
    this.router = new QueueGroup(
      Array.from({ length: count(config.router) }, (_, i) => {
        // Replicas break ties differently, as live ones do when the config sets no seed (each derives
        // its own from its process id); replica 0 keeps the run's seed.
        const replicaSeed = i === 0 ? seed : seedOf(`router-${i}/${seed}`);
        const hops = new RouterHops({ network, inbox, workers, observer, refused: (flight, instanceId, message, why) => core.handoffRefused(flight, undefined, instanceId, message, network.nowUs, why) });
        const core: RoutingStage<Flight> = new RoutingStage({ ...routing, seed: replicaSeed, compat: config.compat }, createRoutingRegistry(), hops, {
          wakeAt: (kind, atUs) => network.periodic(kind, atUs, () => network.gates.router.timer(() => core.wake(kind, atUs, network.nowUs))),
        });
        return core;
      }),
      groupRandom('router'),
    );
    const toRouter = (flight: Flight): void => {
      const router = this.router.pick();
      if (blis) readLiveSignals(workers, router, network.nowUs);
      router.route(flight, network.nowUs, undefined);
    };

    this.flow = new QueueGroup(
      Array.from({ length: count(config.flowController) }, (_, i) => {
        const hops = new FlowHops({
          network,
          inbox,
          toRouter,
          replica: i,
          observer,
          refused: (flight, message, why) => core.handoffRefused(flight, undefined, message, why),
          queueReported: (report) => this.flowQueue(report),
        });
        const core: FlowControlStage<Flight> = new FlowControlStage(flowControlSettingsFrom(config.flowController, createFlowControlRegistry()), hops, {
          wakeAt: (kind, atUs) => {
            const wake = () => network.gates.flow.timer(() => core.wake(kind, atUs, network.nowUs));
            // A TTL wake-up is work (it ends requests); a sweep is housekeeping; a queue report runs when snapshots do.
            if (kind === 'ttl') network.queue.at(atUs, 'ttl', wake);
            else network.periodic(kind === 'report' ? 'snapshot' : kind, atUs, wake);
          },
        });
        return core;
      }),
      groupRandom('flow'),
    );
    const toFlow = (flight: Flight): void => this.flow.pick().submit(flight, network.nowUs, undefined);

    const hopTimes = network.hops;
    const admissionSettings = {
      ...admissionSettingsFrom(config.admission, config.models, 'when-read'),
      ...(config.stepCoefficients && { stepCoefficients: config.stepCoefficients }),
      // Admission to an instance: the three stages' own times and the three transits between them.
      ledgerSettleUs: micros(hopTimes.admissionUs + hopTimes.flowUs + hopTimes.routerUs + 3 * hopTimes.transitUs),
    };
    this.admission = new QueueGroup(
      Array.from({ length: count(config.admission) }, () => {
        const hops = new AdmissionHops({ network, inbox, toFlow, observer, refused: (flight, message, why) => core.handoffRefused(flight, undefined, message, why) });
        const core: AdmissionStage<Flight> = new AdmissionStage(admissionSettings, hops, {
          wakeAt: (kind, atUs) => network.periodic(kind, atUs, () => network.gates.admission.timer(() => core.wake(kind, atUs, network.nowUs))),
        });
        return core;
      }),
      groupRandom('admission'),
    );
    const toAdmission = (flight: Flight): void => this.admission.pick().submit(flight, network.nowUs, undefined);

    const cancel = (request: CancelRequest): void =>
      network.gates.flow.pass(() => {
        for (const flow of this.flow.replicas) flow.onCancel(request, network.nowUs);
      });
    this.doors = { admission: toAdmission, flow: toFlow, router: toRouter, cancel };
  }

  /** Each stage starts its own chores (after the workers' first snapshots). */
  start(atUs: Micros): void {
    for (const admission of this.admission.replicas) admission.start(atUs);
    for (const flow of this.flow.replicas) flow.start(atUs);
    for (const router of this.router.replicas) router.start(atUs);
  }

  lifecycle(event: LifecycleEvent): void {
    const { gates } = this.network;
    gates.admission.pass(() => {
      for (const admission of this.admission.replicas) admission.onLifecycle(event);
    });
    gates.flow.pass(() => {
      for (const flow of this.flow.replicas) flow.onLifecycle(event, this.network.nowUs);
    });
    gates.router.pass(() => {
      for (const router of this.router.replicas) router.onLifecycle(event);
    });
  }

  load(snapshot: LoadSnapshot): void {
    const { gates } = this.network;
    gates.admission.pass(() => {
      for (const admission of this.admission.replicas) admission.onSnapshot(snapshot);
    });
    gates.flow.pass(() => {
      for (const flow of this.flow.replicas) flow.onSnapshot(snapshot, this.network.nowUs);
    });
    gates.router.pass(() => {
      for (const router of this.router.replicas) router.onSnapshot(snapshot);
    });
  }

  /** A flow-control replica's queue report: every admission replica hears it, and the autoscaler. */
  flowQueue(report: FlowQueueReport): void {
    this.network.gates.admission.pass(() => {
      for (const admission of this.admission.replicas) admission.onFlowQueue(report);
    });
    this.queueListener?.(report);
  }

  get wantsKv(): boolean {
    return this.admission.replicas.some((replica) => replica.wantsKvEvents) || this.router.replicas.some((replica) => replica.wantsKvEvents);
  }

  kv(event: KvEvent): void {
    // The routers' KV-event index (precise-prefix-cache) hears them one transit later, as a live
    // router hears them over the bus; in BLIS mode at once (BLIS reads the caches themselves, its
    // only staleness being the index's refresh interval).
    if (this.router.replicas.some((replica) => replica.wantsKvEvents)) {
      const toRouters = () =>
        this.network.gates.router.pass(() => {
          for (const router of this.router.replicas) router.onKv(event);
        });
      if (this.kvAtOnce) toRouters();
      else this.network.queue.at(this.network.nowUs + this.network.hops.transitUs, 'done', toRouters);
    }
    this.network.gates.admission.pass(() => {
      for (const replica of this.admission.replicas) if (replica.wantsKvEvents) replica.onKv(event);
    });
  }

  /** A done event: the routers' in-flight counts, then flow control's books (and its next dispatch cycle). */
  done(done: RequestDone): void {
    const { gates } = this.network;
    gates.router.pass(() => {
      for (const router of this.router.replicas) router.onDone(done);
    });
    gates.flow.pass(() => {
      for (const flow of this.flow.replicas) flow.onDone(done, this.network.nowUs);
    });
  }

  /**
   * BLIS's InFlight drops at the start of the step that completes a request (its state changes
   * apply there), not when the done event reaches the router after the last token: every router
   * replica hears it at once. The later done event is idempotent.
   */
  completing(instanceId: string, requestIds: readonly string[], atUs: Micros): void {
    for (const requestId of requestIds) {
      const done: RequestDone = { requestId, instanceId, reason: 'ok', atUs };
      this.network.gates.router.pass(() => {
        for (const router of this.router.replicas) router.onDone(done);
      });
    }
  }
}
