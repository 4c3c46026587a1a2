import { seedOf, seededRandom } from '@sluice/collections';
import { micros } from '@sluice/contracts';
import { createLatencyModel, type LatencyProfile } from '@sluice/engine';
import type { RunRecord } from '@sluice/metrics';
import { createFlowControlRegistry, createRoutingRegistry } from '@sluice/policies';
import {
  AdmissionStage,
  FlowControlStage,
  RoutingStage,
  WorkerStage,
  admissionSettingsFrom,
  exceedsContext,
  flowControlSettingsFrom,
  priorityFor,
  routingSettingsFrom,
  workerSettingsFrom,
  type AdmissionConfig,
  type FlowControllerConfig,
  type RouterConfig,
  type WorkerConfig,
} from '@sluice/stages';
import type { WorkloadRequest } from '@sluice/workload';
import { fastBlockIds, type BlockHasher } from './block-ids.js';
import { ClientRecords } from './client-records.js';
import { newFlight } from './flight.js';
import { DEFAULT_HOP_LATENCIES, type HopLatencies } from './hops.js';
import { AdmissionHops, FlowHops, RouterHops, TwinStalledError, WorkerHops, World, stepLogs } from './world.js';

export { TwinStalledError } from './world.js';

/** What the twin reads of the cluster's config: the same sections the services read (a SluiceConfig fits). */
export interface TwinConfig {
  readonly models: readonly { readonly name: string; readonly maxModelLen: number }[];
  readonly admission: AdmissionConfig;
  readonly flowController: FlowControllerConfig;
  readonly router: RouterConfig;
  readonly worker: WorkerConfig;
}

export interface TwinOptions {
  readonly config: TwinConfig;
  /** The instances' latency profile (the worker's: `loadProfile(config)`): its model, KV blocks and context. */
  readonly profile: LatencyProfile;
  readonly hops?: HopLatencies;
  /** Seed of the routing tie-breaks (default: router.seed, else 0). */
  readonly seed?: number;
  /**
   * Check the invariants after every step (tests): KV conservation on every instance, and work
   * conservation (an instance holding requests always has a step or a wake-up on the agenda).
   * A broken invariant throws.
   */
  readonly checkInvariants?: boolean;
  /**
   * How prompts become block hashes (default `fastBlockIds`). Only equality of hashes matters to
   * the cluster, so contracts' `blockHashes` (the gateway's SHA-256) gives the same run, slower.
   */
  readonly blockHasher?: BlockHasher;
}

export interface TwinResult {
  readonly records: RunRecord[];
  /** Events processed (the bench's unit of work). */
  readonly events: number;
}

/** The twin's one worker: its instances are `twin-r0`, `twin-r1`, … */
const TWIN_WORKER_ID = 'twin';

/**
 * The discrete-event twin: the stage cores of the live cluster (admission, flow control, routing,
 * the worker and its engines), unchanged, driven in one process in virtual time. It adds only what
 * the live cluster gets from the world: an event loop instead of timers, constant hop latencies
 * instead of a network (`HopLatencies`), and a client that writes each request's record. Pure and
 * deterministic: the same workload, config and seed give the same records.
 */
export class Twin {
  private readonly world: World;
  private readonly blockHasher: BlockHasher;
  private readonly model: { readonly name: string; readonly maxModelLen: number };
  private readonly objectives = new Map<string, number>();

  constructor(options: TwinOptions) {
    const { config } = options;
    const world = (this.world = new World(options.hops ?? DEFAULT_HOP_LATENCIES, options.checkInvariants ?? false));
    this.blockHasher = options.blockHasher ?? fastBlockIds;
    const model = config.models.find((m) => m.name === config.worker.model);
    this.model = model ?? { name: config.worker.model, maxModelLen: options.profile.maxModelLen };
    world.admission = new AdmissionStage(admissionSettingsFrom(config.admission, config.models.map((m) => m.name), 'when-read'), new AdmissionHops(world), {
      wakeAt: (kind, atUs) => world.periodic(kind, atUs, () => world.admission.wake(kind, atUs)),
    });
    world.flow = new FlowControlStage(flowControlSettingsFrom(config.flowController, createFlowControlRegistry()), new FlowHops(world), {
      wakeAt: (kind, atUs) => {
        // A TTL wake-up is work (it ends requests); a sweep is housekeeping.
        if (kind === 'ttl') world.queue.at(atUs, 'ttl', () => world.flow.wake(kind, atUs));
        else world.periodic(kind, atUs, () => world.flow.wake(kind, atUs));
      },
    });
    const routing = routingSettingsFrom(config.router, 0);
    world.router = new RoutingStage({ ...routing, seed: options.seed ?? routing.seed }, createRoutingRegistry(), new RouterHops(world), {
      wakeAt: (kind, atUs) => world.periodic(kind, atUs, () => world.router.wake(kind, atUs)),
    });
    const { profile } = options;
    // The twin runs the model at its own speed (timeScale 1): its hops are real-world latencies.
    const latency = createLatencyModel(profile.latencyModel, profile);
    const worker = workerSettingsFrom({ ...config.worker, timeScale: 1 }, this.model.maxModelLen, profile, latency, TWIN_WORKER_ID);
    world.worker = new WorkerStage(worker, new WorkerHops(world), (instanceId) => seededRandom(seedOf(instanceId)));
    world.stepTimes.push(...stepLogs(worker.instances));
  }

  /** Runs the workload to the end (every request has its record) and returns the records in request order. */
  run(requests: readonly WorkloadRequest[]): TwinResult {
    const { world } = this;
    world.records = new ClientRecords(requests.length);
    // Arrivals join the agenda one at a time, each when the one before it runs, in the order the
    // agenda would run them all (time as `at` clamps it, then request order): the same run as
    // scheduling them all up front, with an agenda of the events in flight rather than the workload.
    const arrivals = requests.map((request, i) => ({ request, i, atUs: Math.max(request.arrivalMs * 1000, 0) }));
    arrivals.sort((a, b) => (a.atUs !== b.atUs ? (a.atUs < b.atUs ? -1 : 1) : a.i - b.i));
    let next = 0;
    const arriveNext = (): void => {
      const { request, i } = arrivals[next++]!;
      if (next < arrivals.length) world.queue.at(arrivals[next]!.atUs, 'arrive', arriveNext);
      this.arrive(request, i);
    };
    if (arrivals.length > 0) world.queue.at(arrivals[0]!.atUs, 'arrive', arriveNext);
    if (requests.length > 0) {
      // The worker registers its instances and publishes their first snapshots before anything
      // else, so the stages start with a fresh view; then each stage starts its own chores.
      const start = micros(0);
      world.worker.start(start);
      world.admission.start(start);
      world.flow.start(start);
      world.router.start(start);
    }
    const events = world.queue.drain();
    // Already in request order: each record was written at its request's place.
    const records = world.records.all();
    if (records.length !== requests.length) throw new TwinStalledError(requests.length - records.length, world.queue.nowUs);
    return { records, events };
  }

  /** The client sends the request; the gateway's own checks, then admission one hop later. */
  private arrive(request: WorkloadRequest, position: number): void {
    const { world } = this;
    const now = world.nowUs;
    const flight = newFlight(request, position, {
      model: this.model.name,
      priority: priorityFor(undefined, request.sloClass, this.objectives),
      blockHashes: this.blockHasher(request.inputTokens),
      // The JSON body's size: the token ids' digits and separators, a fair stand-in.
      bodyBytes: 64 + request.inputTokens.length * 6,
      arrivalUs: now,
      // The twin does not model the gateway's request timeout yet: nothing is given up on.
      deadlineUs: micros(Number.POSITIVE_INFINITY),
    });
    const { gatewayUs, transitUs } = world.hops;
    if (exceedsContext(flight.inputTokens, flight.maxTokens, this.model) !== undefined) {
      // The gateway answers 400 itself: its own time is the whole round trip.
      world.records.failed(flight, now + gatewayUs, 'unservable', 'gateway');
      return;
    }
    world.queue.at(now + gatewayUs + transitUs, 'admit', () => world.admission.submit(flight, world.nowUs, undefined));
  }
}

/** Runs a workload through a fresh twin. */
export function simulate(requests: readonly WorkloadRequest[], options: TwinOptions): TwinResult {
  return new Twin(options).run(requests);
}
