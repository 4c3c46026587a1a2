import { micros, microsFromMillis, type Micros } from '@sluice/contracts';
import { createLatencyModel, type LatencyProfile } from '@sluice/engine';
import type { RunRecord } from '@sluice/metrics';
import {
  autoscalerSettingsFrom,
  handoffWindowUs,
  priorityFor,
  readRequestHeaders,
  stepCoefficientsFrom,
  workerSettingsFrom,
  type AdmissionConfig,
  type AutoscalerConfigSection,
  type FlowControllerConfig,
  type GatewaySettings,
  type RouterConfig,
  type TokenLimits,
  type WorkerConfig,
} from '@sluice/stages';
import { createFaultRegistry, schedulingHeadersOf, type Fault, type WorkloadRequest } from '@sluice/workload';
import { announceAdmissionReplicas } from './admission-presence.js';
import { fastBlockIds, type BlockHasher } from './block-ids.js';
import { ChaosTimeline } from './chaos/chaos-timeline.js';
import type { TwinChaosReport } from './chaos/chaos-report.js';
import { twinChaosHost } from './chaos/twin-fault-port.js';
import { twinEngineCounters, type TwinEngineCounters } from './engine-counters.js';
import type { ClientRecords, RecordSink } from './client-records.js';
import { newFlight } from './flight.js';
import type { Migration, TwinGateway } from './gateway.js';
import { HopDraws, type HopSample } from './hop-profile.js';
import { DEFAULT_HOP_LATENCIES, ZERO_HOP_LATENCIES, type HopLatencies } from './hops.js';
import type { TwinObserver } from './observer.js';
import { replicaTallies, type TwinReplicaTallies } from './replica-tallies.js';
import type { Replicated } from './stage-groups.js';
import { TwinStalledError } from './stalled.js';
import type { TwinAutoscalerLog } from './twin-autoscaler.js';
import { buildWorld, type TwinWorld, type TwinWorldSettings } from './twin-world.js';

export { TwinStalledError } from './stalled.js';
export type { RecordSink } from './client-records.js';
export type { Migration } from './gateway.js';
export type { TwinObserver } from './observer.js';
export type { TwinReplicaTallies } from './replica-tallies.js';
export type { HeardLifecycle, TwinAutoscalerLog } from './twin-autoscaler.js';

/** A presence heartbeat every second, the services' default, when a hand-built config gives none. */
const DEFAULT_HEARTBEAT_INTERVAL_MS = 1_000;

/** A hand-built config without the gateway's token caps: only the model's context bounds a request. */
const NO_TOKEN_LIMITS: TokenLimits = { maxPromptTokens: 0, maxTokens: 0 };

/** What the twin reads of the cluster's config: the same sections the services read (a SluiceConfig fits). */
export interface TwinConfig {
  readonly models: readonly { readonly name: string; readonly maxModelLen: number }[];
  /** Each stage's section; `replicas` (default 1) cores of it run behind its queue group. */
  readonly admission: AdmissionConfig & Replicated & { readonly heartbeatIntervalMs?: number };
  readonly flowController: FlowControllerConfig & Replicated;
  readonly router: RouterConfig & Replicated;
  /** `processes` worker processes (default 1) of `instances` each; `shutdownGraceMs` for a terminated one (chaos). */
  readonly worker: WorkerConfig & { readonly processes?: number; readonly shutdownGraceMs?: number };
  /** The gateway's migration limit, deadline and retry window (a chaos run needs it; without it nothing is re-submitted). */
  readonly gateway?: { readonly migrationLimit: number; readonly requestTimeoutMs: number; readonly heartbeatTimeoutMs: number; readonly limits?: TokenLimits };
  /** The ack timeout of a handoff a bus fault drops (a chaos run needs it). */
  readonly nats?: { readonly ackTimeoutMs: number };
  /** `twin.hops` of sluice.yaml: the hop latencies when the caller passes none (a SluiceConfig always has them). */
  readonly twin?: { readonly hops: HopLatencies };
  /** The autoscaler (docs/autoscaling.md); absent or not enabled: the pool keeps its size. */
  readonly autoscaler?: AutoscalerConfigSection & { readonly enabled: boolean };
}

export interface TwinOptions {
  readonly config: TwinConfig;
  /** The instances' latency profile (the worker's: `loadProfile(config)`): its model, KV blocks and context. */
  readonly profile: LatencyProfile;
  /**
   * Hop latencies that win over the config's `twin.hops` (`--hop-latency-from`: measured on a live
   * run, they describe this comparison better than the file does); neither: DEFAULT_HOP_LATENCIES.
   */
  readonly hops?: HopLatencies;
  /**
   * Live requests' paths (a hop profile, or `--hop-latency-from`'s report): each request of the
   * twin takes one of them whole, drawn with the run's seed, instead of constant hops. Wins over
   * `hops`; what belongs to no request (a done event, a cancel) takes the samples' medians.
   */
  readonly hopSamples?: readonly HopSample[];
  /** With `hopSamples` from the live run of this very workload: each request takes its own live counterpart's path. */
  readonly pairedHops?: boolean;
  /** Seed of the routing tie-breaks and of bus fault decisions (default: router.seed, else 0). */
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
  /**
   * A chaos scenario's faults (docs/twin.md, "Faults in the twin"): fired in virtual time from the
   * first request on. A chaos run also models the gateway's request timeout (a hung request ends
   * with 504 at its deadline, as live), and needs the config's gateway, nats and
   * worker.shutdownGraceMs.
   */
  readonly chaos?: { readonly faults: readonly Fault[] };
  /** Hears the decisions the stages report (which replica released what, when): tests and studies. */
  readonly observer?: TwinObserver;
}

export interface TwinResult {
  readonly records: RunRecord[];
  /** Events processed (the bench's unit of work). */
  readonly events: number;
  /** Every re-submission the twin's gateway made, in order (none without faults). */
  readonly migrations: readonly Migration[];
  /** What each fault did, for a chaos run. */
  readonly chaos?: TwinChaosReport;
  /** Each instance's engine counters at the end (preemptions, KV allocation failures, cache-hit rate): report.json's `engine`. */
  readonly engine: readonly TwinEngineCounters[];
  /** Each stage replica's share of the handoffs, and what it still counted in flight at the end. */
  readonly replicas: TwinReplicaTallies;
  /** With `autoscaler.enabled`: its decisions and the instances' comings and goings it heard (report.json's `autoscaler`). */
  readonly autoscaler?: TwinAutoscalerLog;
}

/** What a streamed run returns: its records went to the sink. */
export interface TwinStreamResult extends Omit<TwinResult, 'records' | 'chaos'> {
  /** Requests read and recorded. */
  readonly requests: number;
}

/** The twin's worker process when it has one (its instances are `twin-r0`, `twin-r1`, …); else `twin-0`, `twin-1`, … */
const workerIdOf = (process: number, processes: number) => (processes === 1 ? 'twin' : `twin-${process}`);

/**
 * The discrete-event twin: the stage cores of the live cluster (the gateway, admission, flow
 * control, routing, the worker and its engines), unchanged, driven in one process in virtual time.
 * It adds only what the live cluster gets from the world: an event loop instead of timers,
 * constant hop latencies instead of a network (`TwinNetwork`), and a client that writes each
 * request's record. Pure and deterministic: the same workload, config, seed and faults give the
 * same records.
 */
export class Twin {
  private readonly settings: TwinWorldSettings;
  private readonly blockHasher: BlockHasher;
  private readonly modelName: string;
  private readonly objectives = new Map<string, number>();
  private readonly faults: readonly Fault[] | undefined;
  private readonly requestTimeoutUs: number | undefined;
  private readonly heartbeatIntervalUs: number;
  private readonly hopDraws: HopDraws | undefined;

  constructor(options: TwinOptions) {
    const { config } = options;
    const chaos = options.chaos === undefined ? undefined : chaosSettings(config);
    const seed = options.seed ?? config.router.seed ?? 0;
    const blis = config.worker.compat === 'blis';
    this.hopDraws = options.hopSamples === undefined ? undefined : new HopDraws(options.hopSamples, seed, options.pairedHops ?? false);
    this.faults = options.chaos?.faults;
    this.requestTimeoutUs = chaos === undefined ? undefined : chaos.requestTimeoutMs * 1000;
    this.blockHasher = options.blockHasher ?? fastBlockIds;
    const model = config.models.find((m) => m.name === config.worker.model) ?? { name: config.worker.model, maxModelLen: options.profile.maxModelLen };
    this.modelName = model.name;
    this.heartbeatIntervalUs = microsFromMillis(config.admission.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS);
    const { profile } = options;
    // The twin runs the model at its own speed (timeScale 1): its hops are real-world latencies.
    const latency = createLatencyModel(profile.latencyModel, profile);
    const processes = config.worker.processes ?? 1;
    this.settings = {
      // BLIS's routing and admission take no time and it has no network (docs/behaviour.md §1):
      // in its mode only hops measured on a live run (`--hop-latency-from`) are kept.
      hops: this.hopDraws?.base ?? options.hops ?? (blis ? ZERO_HOP_LATENCIES : (config.twin?.hops ?? DEFAULT_HOP_LATENCIES)),
      ackTimeoutUs: (chaos?.ackTimeoutMs ?? 0) * 1000,
      seed,
      gateway: { core: gatewayCoreSettings(config, this.requestTimeoutUs), model, limits: config.gateway?.limits ?? NO_TOKEN_LIMITS, blockHasher: this.blockHasher },
      stages: {
        ...config,
        models: config.models.map((m) => m.name),
        seed,
        compat: config.worker.compat ?? 'vllm',
        stepCoefficients: { [model.name]: stepCoefficientsFrom(profile, 1) },
      },
      workers: Array.from({ length: processes }, (_, p) => workerSettingsFrom({ ...config.worker, timeScale: 1 }, model.maxModelLen, profile, latency, workerIdOf(p, processes))),
      shutdownGraceUs: (chaos?.shutdownGraceMs ?? 0) * 1000,
      checkInvariants: options.checkInvariants ?? false,
      observer: options.observer,
      // Silence means gone after the routers' heartbeat timeout, as the other stages judge a worker.
      ...(config.autoscaler?.enabled === true && { autoscaler: autoscalerSettingsFrom(config.autoscaler, { ...config.worker, processes }, config.router.heartbeatTimeoutMs) }),
    };
  }

  /** Runs the workload to the end (every request has its record) and returns the records in request order. */
  run(requests: readonly WorkloadRequest[]): TwinResult {
    const world = buildWorld(this.settings, requests.length);
    // Arrivals join the agenda one at a time, each when the one before it runs, in the order the
    // agenda would run them all (time as `at` clamps it, then request order): the same run as
    // scheduling them all up front, with an agenda of the events in flight rather than the workload.
    const arrivals = requests.map((request, position) => ({ request, position, atUs: arrivalUsOf(request) }));
    arrivals.sort((a, b) => (a.atUs !== b.atUs ? (a.atUs < b.atUs ? -1 : 1) : a.position - b.position));
    const { events, timeline } = this.drive(world, arrivals.values());
    // Already in request order: each record was written at its request's place.
    const records = world.records.all();
    if (records.length !== requests.length) throw new TwinStalledError(requests.length - records.length, world.network.queue.nowUs);
    const { migrations } = world.gateway;
    const chaos = timeline?.report(records, migrations, world.gateway.migrationsByReason());
    return { records, events, migrations, ...(chaos ? { chaos } : {}), ...this.endState(world) };
  }

  /**
   * Runs a workload read one request at a time (`generateWorkload`'s iterator: a request is read
   * when the one before it arrives) and hands each record to `sink` as it settles, in the order
   * they settle, keeping none: memory holds the requests in flight, not the run. The same run as
   * `run` gives for the same requests, record for record. The requests must come in arrival order
   * (a generated workload does; a trace may not: sort it and use `run`), and a chaos run, whose
   * report reads every record, is refused.
   */
  stream(requests: Iterable<WorkloadRequest>, sink: RecordSink): TwinStreamResult {
    if (this.faults !== undefined) throw new Error('a chaos run reads every record for its report: run it with run(), not stream()');
    const world = buildWorld(this.settings, 0, sink);
    const { events } = this.drive(world, inArrivalOrder(requests, world.records));
    const { outstanding } = world.records;
    if (outstanding > 0) throw new TwinStalledError(outstanding, world.network.queue.nowUs);
    return { requests: world.records.count, events, migrations: world.gateway.migrations, ...this.endState(world) };
  }

  /** Puts the arrivals on the agenda one by one, starts the cluster, and runs the agenda dry. */
  private drive(world: TwinWorld, arrivals: Iterator<Arrival>): { events: number; timeline: ChaosTimeline | undefined } {
    const { network, workers, stages, gateway } = world;
    let next = arrivals.next();
    const first = next.done ? undefined : next.value;
    const arriveNext = (): void => {
      const { request, position } = next.value as Arrival;
      next = arrivals.next();
      if (!next.done) network.queue.at(next.value.atUs, 'arrive', arriveNext);
      this.arrive(gateway, network.nowUs, request, position);
    };
    if (first !== undefined) network.queue.at(first.atUs, 'arrive', arriveNext);
    // A scenario's offsets count from the first request, as a live chaos run's do.
    const timeline = this.faults === undefined ? undefined : new ChaosTimeline(twinChaosHost(world), this.faults, first?.atUs ?? 0, createFaultRegistry());
    timeline?.schedule();
    if (first !== undefined) {
      // Each worker registers its instances and publishes their first snapshots before anything
      // else, so the stages start with a fresh view; then each stage starts its own chores.
      const start = micros(0);
      for (const process of workers.processes) process.stage.start(start);
      announceAdmissionReplicas(network, stages.admission, start, this.heartbeatIntervalUs);
      stages.start(start);
      world.autoscaler?.start(start);
    }
    return { events: network.queue.drain(), timeline };
  }

  /** What a run reports of the cluster at its end, beyond the records. */
  private endState(world: TwinWorld): Pick<TwinResult, 'engine' | 'replicas' | 'autoscaler'> {
    const autoscaler = world.autoscaler?.log();
    return { engine: twinEngineCounters(world.workers.processes), replicas: replicaTallies(world.stages, world.network.nowUs), ...(autoscaler && { autoscaler }) };
  }

  /** The client sends the request: the gateway takes it (its own checks, then admission one hop later). */
  private arrive(gateway: TwinGateway, now: Micros, request: WorkloadRequest, position: number): void {
    const base = this.settings.hops;
    const hops = this.hopDraws?.of(position) ?? base;
    const flight = newFlight(request, position, {
      model: this.modelName,
      priority: priorityFor(undefined, request.sloClass, this.objectives),
      blockHashes: this.blockHasher(request.inputTokens),
      // The JSON body's size: the token ids' digits and separators, a fair stand-in.
      bodyBytes: 64 + request.inputTokens.length * 6,
      arrivalUs: now,
      // Outside chaos runs the twin does not model the gateway's request timeout: nothing is given up on.
      deadlineUs: micros(this.requestTimeoutUs === undefined ? Number.POSITIVE_INFINITY : now + this.requestTimeoutUs),
      sloTtftUs: sloTtftUsOf(request),
      hops,
      returnExtraUs: hops.returnUs - base.returnUs,
    });
    gateway.receive(flight);
  }
}

/**
 * The TTFT target the live gateway would put on the request: the headers `sluice run` sends for
 * it, read by the gateway's own rules (`readRequestHeaders`), in µs as the gateway converts it.
 * Only a request with a target pays for the headers.
 */
function sloTtftUsOf(request: WorkloadRequest): Micros | undefined {
  if (request.slo?.ttftMs === undefined) return undefined;
  const headers = schedulingHeadersOf(request);
  const reading = readRequestHeaders((name) => headers[name]);
  // The spec's bounds are the gateway's: a target it would refuse cannot come from a workload.
  if (!reading.ok) throw new Error(`request r${request.index}: ${reading.message}`);
  return reading.sloTtftMs === undefined ? undefined : microsFromMillis(reading.sloTtftMs);
}

/**
 * The gateway core's settings in the twin: its migration limit and handoff window from the config;
 * a request timeout only in chaos runs (else nothing is given up on); and holders never judged by
 * their silence, since the twin's gateway hears of every loss (the router's reports, hand-backs).
 */
function gatewayCoreSettings(config: TwinConfig, requestTimeoutUs: number | undefined): GatewaySettings {
  const heartbeatTimeoutMs = config.gateway?.heartbeatTimeoutMs ?? 0;
  return {
    requestTimeoutUs: micros(requestTimeoutUs ?? Number.POSITIVE_INFINITY),
    maxStreamDurationUs: micros(0),
    heartbeatTimeoutUs: micros(Number.POSITIVE_INFINITY),
    migrationLimit: config.gateway?.migrationLimit ?? 0,
    resubmitWindowUs: handoffWindowUs(heartbeatTimeoutMs * 1000, (config.nats?.ackTimeoutMs ?? 0) * 1000),
  };
}

/** What a chaos run reads beyond a plain run; a hand-built config without it cannot run one. */
function chaosSettings(config: TwinConfig): { ackTimeoutMs: number; requestTimeoutMs: number; shutdownGraceMs: number } {
  const { gateway, nats } = config;
  const shutdownGraceMs = config.worker.shutdownGraceMs;
  if (gateway && nats && shutdownGraceMs !== undefined) return { ackTimeoutMs: nats.ackTimeoutMs, requestTimeoutMs: gateway.requestTimeoutMs, shutdownGraceMs };
  const missing = [gateway ? '' : 'gateway', nats ? '' : 'nats', shutdownGraceMs === undefined ? 'worker.shutdownGraceMs' : ''].filter((key) => key !== '');
  throw new Error(`a chaos run needs the config's ${missing.join(', ')} (a SluiceConfig has them)`);
}

/** A request's arrival on the agenda: when, and its place in the workload (its record's). */
interface Arrival {
  readonly request: WorkloadRequest;
  readonly position: number;
  readonly atUs: number;
}

/** A request arrives when the workload says, or at the start if before it (the agenda clamps it so). */
const arrivalUsOf = (request: WorkloadRequest): number => Math.max(request.arrivalMs * 1000, 0);

/** A streamed workload's arrivals, each counted in as it is read; one earlier than the one before it is refused. */
function* inArrivalOrder(requests: Iterable<WorkloadRequest>, records: ClientRecords): Generator<Arrival, void, undefined> {
  let position = 0;
  let lastUs = 0;
  for (const request of requests) {
    const atUs = arrivalUsOf(request);
    if (atUs < lastUs) throw new Error(`request r${request.index} arrives at ${request.arrivalMs} ms, before the one read before it: a streamed workload must come in arrival order`);
    lastUs = atUs;
    records.expect();
    yield { request, position: position++, atUs };
  }
}

/** Runs a workload through a fresh twin. */
export function simulate(requests: readonly WorkloadRequest[], options: TwinOptions): TwinResult {
  return new Twin(options).run(requests);
}

/** Streams a workload through a fresh twin, each record to `sink` as it settles (`Twin.stream`). */
export function simulateStreamed(requests: Iterable<WorkloadRequest>, sink: RecordSink, options: TwinOptions): TwinStreamResult {
  return new Twin(options).stream(requests, sink);
}
