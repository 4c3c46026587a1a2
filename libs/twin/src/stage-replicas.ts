import { seedOf, seededRandom } from '@sluice/collections';
import { micros } from '@sluice/contracts';
import type { EngineCompat } from '@sluice/engine';
import { createFlowControlRegistry, createRoutingRegistry } from '@sluice/policies';
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
import type { Flight } from './flight.js';
import { QueueGroup } from './queue-group.js';
import { AdmissionHops, FlowHops, RouterHops } from './stage-hops.js';
import type { World } from './world.js';

/** `<stage>.replicas` of sluice.yaml: the processes behind the stage's queue group (absent: 1). */
export interface Replicated {
  readonly replicas?: number;
}

/** What the stage replicas are built from: the config's sections, as the services read them. */
export interface StageReplicasConfig {
  readonly models: readonly string[];
  readonly admission: AdmissionConfig & Replicated;
  readonly flowController: FlowControllerConfig & Replicated;
  readonly router: RouterConfig & Replicated;
  /** The run's seed: routing tie-breaks and the queue groups' picks derive from it. */
  readonly seed: number;
  readonly compat: EngineCompat;
}

/**
 * Builds `<stage>.replicas` cores of admission, flow control and routing into the world's queue
 * groups, each core with its own settings, effects and wake-ups, as each live replica is a process
 * of its own. Their timers pass their stage's gate (a pause holds every replica). Replica 0 is built
 * exactly as the single stage always was, so a run with one replica of each is the run it was.
 */
export function buildStageReplicas(world: World, config: StageReplicasConfig): void {
  const { seed } = config;
  const groupRandom = (stage: string) => seededRandom(seedOf(`queue-group/${stage}/${seed}`));
  const count = (section: Replicated) => section.replicas ?? 1;

  const admission = Array.from({ length: count(config.admission) }, (_, i) => {
    const core: AdmissionStage<Flight> = new AdmissionStage(admissionSettingsFrom(config.admission, config.models, 'when-read'), new AdmissionHops(world, i), {
      wakeAt: (kind, atUs) => world.periodic(kind, atUs, () => world.gates.admission.timer(() => core.wake(kind, atUs, world.nowUs))),
    });
    return core;
  });
  world.admission = new QueueGroup(admission, groupRandom('admission'));

  const flow = Array.from({ length: count(config.flowController) }, (_, i) => {
    const core: FlowControlStage<Flight> = new FlowControlStage(flowControlSettingsFrom(config.flowController, createFlowControlRegistry()), new FlowHops(world, i), {
      wakeAt: (kind, atUs) => {
        const wake = () => world.gates.flow.timer(() => core.wake(kind, atUs, world.nowUs));
        // A TTL wake-up is work (it ends requests); a sweep is housekeeping.
        if (kind === 'ttl') world.queue.at(atUs, 'ttl', wake);
        else world.periodic(kind, atUs, wake);
      },
    });
    return core;
  });
  world.flow = new QueueGroup(flow, groupRandom('flow'));

  const configured = routingSettingsFrom(config.router, 0);
  // BLIS mode reads signals live before each decision (blis-signals.ts): they must be visible at once.
  const routing = config.compat === 'blis' ? { ...configured, snapshotRefreshIntervalUs: micros(0) } : configured;
  const router = Array.from({ length: count(config.router) }, (_, i) => {
    // Replicas break ties differently, as live ones do when the config sets no seed (each derives
    // its own from its process id); replica 0 keeps the run's seed.
    const replicaSeed = i === 0 ? seed : seedOf(`router-${i}/${seed}`);
    const core: RoutingStage<Flight> = new RoutingStage({ ...routing, seed: replicaSeed, compat: config.compat }, createRoutingRegistry(), new RouterHops(world, i), {
      wakeAt: (kind, atUs) => world.periodic(kind, atUs, () => world.gates.router.timer(() => core.wake(kind, atUs, world.nowUs))),
    });
    return core;
  });
  world.router = new QueueGroup(router, groupRandom('router'));
}
