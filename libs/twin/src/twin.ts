import { httpStatusOf, micros, outcomeOf, priorityOf, type LoadSnapshot, type OutcomeReason, type Stage } from '@sluice/contracts';
import { seededRandom } from '@sluice/collections';
import { VllmEngine, type LatencyModel, type InstanceSchedulerName, type StepResult } from '@sluice/engine';
import type { RunRecord, ServedTimings } from '@sluice/metrics';
import {
  AdmissionCluster,
  ClusterState,
  FlowPool,
  FlowQueues,
  PrefixIndex,
  createAdmissionRegistry,
  createFlowControlRegistry,
  createRoutingRegistry,
  flowControlFrom,
  legacyModeSheds,
  runDispatchCycle,
  type AdmissionPolicy,
  type FlowControlConfig,
  type PolicyRequest,
  type RoutingPolicy,
  type SaturationDetector,
} from '@sluice/policies';
import type { WorkloadRequest } from '@sluice/workload';
import { fastBlockIds, type BlockHasher } from './block-ids.js';
import { EventQueue } from './event-queue.js';
import { DEFAULT_HOP_LATENCIES, type HopLatencies } from './hops.js';
import { StepTimes } from './step-times.js';

/** What the twin reads of the cluster's config: the same keys the services read (a SluiceConfig fits). */
export interface TwinConfig {
  readonly models: readonly { readonly name: string; readonly maxModelLen: number }[];
  readonly admission: { readonly policy: string; readonly policies: Readonly<Record<string, unknown>> };
  readonly flowController: FlowControlConfig & { readonly enabled: boolean };
  readonly router: { readonly policy: string; readonly policies: Readonly<Record<string, unknown>>; readonly snapshotRefreshIntervalMs: number; readonly seed?: number | undefined };
  readonly worker: {
    readonly instances: number;
    readonly model: string;
    readonly scheduler: InstanceSchedulerName;
    readonly maxRunning: number;
    readonly maxBatchTokens: number;
    readonly loadIntervalMs: number;
  };
}

export interface TwinOptions {
  readonly config: TwinConfig;
  readonly latency: LatencyModel;
  /** KV blocks per instance (the profile's, or worker.kvBlocks). */
  readonly totalKvBlocks: number;
  /** The profile's context limit (the instance accepts min(this, the model's maxModelLen)). */
  readonly profileMaxModelLen: number;
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

/** With snapshots on change, instances still publish one this often (IDLE_SNAPSHOT_REFRESH_MS). */
const IDLE_SNAPSHOT_US = 100_000;

/**
 * A request on its way through the twin. It is also the request the policies decide on and the
 * one its instance serves (a `PolicyRequest` has every field of an `EngineRequest`): one object
 * per request rather than three, so a step's tokens reach the flight they belong to directly.
 */
interface Flight extends PolicyRequest {
  readonly request: WorkloadRequest;
  /** Its place in the workload, which is its record's place in the result. */
  readonly position: number;
  readonly arrivalUs: number;
  /**
   * The steps of its instance that gave it a token (one each), as runs of consecutive step
   * numbers: the run under way here (length 0 until the first token), and earlier ones as
   * (start, length) pairs, each cut by a step that gave it none (a preemption, a batch whose
   * token budget ran out before it). Their times are read from the instance's `StepTimes` when
   * the record is written.
   */
  runStart: number;
  runLength: number;
  earlierRuns: number[] | undefined;
  timings: { admissionMs?: number; flowQueueMs?: number; routingMs?: number };
  instance: Instance | undefined;
  workerArrivalUs: number | undefined;
  admittedUs: number | undefined;
  firstTokenUs: number | undefined;
}

interface Instance {
  readonly id: string;
  readonly engine: VllmEngine<Flight>;
  readonly stepTimes: StepTimes;
  /** A step is under way (its end is on the agenda). */
  busy: boolean;
  /** A wake-up for a request leaving its queueing delay is on the agenda at this time. */
  readyAtUs: number | undefined;
}

/**
 * The discrete-event twin: the admission, flow-control and routing policies, the engine and the
 * metrics records of the live cluster, unchanged, wired in one process in virtual time. The
 * network is a set of constant hop latencies (`HopLatencies`). Pure and deterministic: the same
 * workload, config and seed give the same records.
 */
export class Twin {
  private readonly queue = new EventQueue();
  private readonly hops: HopLatencies;
  private readonly admission: AdmissionPolicy;
  private readonly admissionCluster: AdmissionCluster;
  private readonly flowEnabled: boolean;
  private readonly flowQueues: FlowQueues<Flight>;
  private readonly detector: SaturationDetector;
  private readonly flowPool = new FlowPool(micros(Number.POSITIVE_INFINITY));
  private readonly routing: RoutingPolicy;
  private readonly routerCluster: ClusterState;
  private readonly routerPrefix = new PrefixIndex();
  private readonly instances: Instance[] = [];
  private readonly byId = new Map<string, Instance>();
  private readonly flights = new Map<string, Flight>();
  /** Each request's record at its place in the workload (written when it ends; sized by `run`). */
  private records: (RunRecord | undefined)[] = [];
  private readonly maxModelLen: number;
  private readonly blockHasher: BlockHasher;
  private outstanding = 0;
  /** When the pending TTL wake-up runs, if one is on the agenda. */
  private ttlWakeUs: number | undefined;

  constructor(private readonly options: TwinOptions) {
    const { config } = options;
    this.hops = options.hops ?? DEFAULT_HOP_LATENCIES;
    this.blockHasher = options.blockHasher ?? fastBlockIds;
    this.admission = createAdmissionRegistry().create(config.admission.policy, config.admission.policies[config.admission.policy] ?? {});
    // The policy is fixed for the run: keep admission's prefix index only if it reads one.
    this.admissionCluster = new AdmissionCluster(micros(Number.POSITIVE_INFINITY), { keepPrefixIndex: this.admission.readsPrefix === true });
    const flow = flowControlFrom(config.flowController, createFlowControlRegistry());
    this.flowEnabled = config.flowController.enabled;
    this.flowQueues = new FlowQueues(flow.settings);
    this.detector = flow.detector;
    const seed = options.seed ?? config.router.seed ?? 0;
    this.routing = createRoutingRegistry().create(config.router.policy, config.router.policies[config.router.policy] ?? {}, { random: seededRandom(seed) });
    this.routerCluster = new ClusterState(micros(Number.POSITIVE_INFINITY), { snapshots: config.router.snapshotRefreshIntervalMs > 0 ? 'on-refresh' : 'immediate' });
    const model = config.models.find((m) => m.name === config.worker.model);
    this.maxModelLen = Math.min(model?.maxModelLen ?? options.profileMaxModelLen, options.profileMaxModelLen);
    for (let rank = 0; rank < config.worker.instances; rank++) {
      const id = `twin-r${rank}`;
      const engine = new VllmEngine<Flight>({
        model: options.latency,
        totalKvBlocks: options.totalKvBlocks,
        maxModelLen: this.maxModelLen,
        maxRunning: config.worker.maxRunning,
        maxBatchTokens: config.worker.maxBatchTokens,
        scheduler: config.worker.scheduler,
      });
      const instance: Instance = { id, engine, stepTimes: new StepTimes(), busy: false, readyAtUs: undefined };
      this.instances.push(instance);
      this.byId.set(id, instance);
      const identity = { instanceId: id, workerId: 'twin', rank, model: config.worker.model, totalKvBlocks: options.totalKvBlocks };
      const registered = { ...identity, type: 'register' as const, atUs: micros(0) };
      this.admissionCluster.onLifecycle(registered);
      this.flowPool.onLifecycle(registered);
      this.routerCluster.onLifecycle(registered);
    }
  }

  /** Runs the workload to the end (every request has its record) and returns the records in request order. */
  run(requests: readonly WorkloadRequest[]): TwinResult {
    this.outstanding = requests.length;
    this.records = new Array<RunRecord | undefined>(requests.length);
    // Arrivals join the agenda one at a time, each when the one before it runs, in the order the
    // agenda would run them all (time as `at` clamps it, then request order): the same run as
    // scheduling them all up front, with an agenda of the events in flight rather than the workload.
    const arrivals = requests.map((request, i) => ({ request, i, atUs: Math.max(request.arrivalMs * 1000, 0) }));
    arrivals.sort((a, b) => (a.atUs !== b.atUs ? (a.atUs < b.atUs ? -1 : 1) : a.i - b.i));
    let next = 0;
    const arriveNext = (): void => {
      const { request, i } = arrivals[next++]!;
      if (next < arrivals.length) this.queue.at(arrivals[next]!.atUs, 'arrive', arriveNext);
      this.arrive(request, i);
    };
    if (arrivals.length > 0) this.queue.at(arrivals[0]!.atUs, 'arrive', arriveNext);
    this.publishSnapshots();
    if (this.options.config.router.snapshotRefreshIntervalMs > 0) this.refreshRouter();
    const events = this.queue.drain();
    // Already in request order: each record was written at its request's place (sorting them by
    // id afterwards took 1.6 s of a million-request run).
    const records = this.records.filter((record): record is RunRecord => record !== undefined);
    if (records.length !== requests.length) throw new TwinStalledError(requests.length - records.length, this.queue.nowUs);
    return { records, events };
  }

  // ── the pipeline ────────────────────────────────────────────────────────────────────────────

  private arrive(request: WorkloadRequest, position: number): void {
    const now = this.queue.nowUs;
    // Every field written here, in one order, so that all flights share one shape.
    const flight: Flight = {
      id: `r${request.index}`,
      model: this.options.config.worker.model,
      inputTokens: request.inputTokens.length,
      maxTokens: request.maxTokens,
      priority: priorityOf(request.sloClass),
      sloClass: request.sloClass,
      fairnessId: request.tenantId,
      blockHashes: this.blockHasher(request.inputTokens),
      request,
      position,
      arrivalUs: now,
      runStart: -1,
      runLength: 0,
      earlierRuns: undefined,
      timings: {},
      instance: undefined,
      workerArrivalUs: undefined,
      admittedUs: undefined,
      firstTokenUs: undefined,
    };
    this.flights.set(flight.id, flight);
    // The gateway's own check: a request no instance could hold is a 400 at once.
    if (flight.inputTokens + flight.maxTokens > this.maxModelLen) {
      this.end(flight, now + this.hops.gatewayUs, { reason: 'unservable', stage: 'gateway' });
      return;
    }
    this.queue.at(now + this.hops.gatewayUs + this.hops.transitUs, 'admit', () => this.admit(flight));
  }

  private admit(flight: Flight): void {
    const now = this.queue.nowUs;
    const decision = this.admission.decide(flight, this.admissionCluster.view(micros(now)), micros(now));
    flight.timings.admissionMs = this.hops.admissionUs / 1000;
    if (!decision.admit) {
      this.end(flight, now + this.hops.admissionUs + this.hops.returnUs, { reason: decision.reason, stage: 'admission' });
      return;
    }
    this.queue.at(now + this.hops.admissionUs + this.hops.transitUs, 'flow', () => this.enqueue(flight));
  }

  private enqueue(flight: Flight): void {
    const now = this.queue.nowUs;
    if (!this.flowEnabled) {
      const saturation = this.detector.saturation(this.flowPool.signals(micros(now)));
      if (legacyModeSheds(flight.priority, saturation)) {
        this.end(flight, now + this.hops.flowUs + this.hops.returnUs, { reason: 'pool_saturated', stage: 'flow' });
        return;
      }
      flight.timings.flowQueueMs = 0;
      this.release(flight);
      return;
    }
    const outcome = this.flowQueues.enqueue(
      {
        id: flight.id,
        flow: { fairnessId: flight.fairnessId, priority: flight.priority },
        // The JSON body's size: the token ids' digits and separators, a fair stand-in.
        byteSize: 64 + flight.request.inputTokens.length * 6,
        tokens: flight.inputTokens + flight.maxTokens,
        arrivalUs: micros(flight.arrivalUs),
        payload: flight,
      },
      micros(now),
    );
    if (!outcome.ok) {
      this.end(flight, now + this.hops.flowUs + this.hops.returnUs, { reason: 'flow_capacity', stage: 'flow' });
      return;
    }
    this.dispatch();
    this.armTtl();
  }

  /** The gated dispatch cycle, run whenever work arrives or capacity may have freed. */
  private dispatch(): void {
    if (this.flowQueues.size === 0) return;
    const now = this.queue.nowUs;
    // One view of the endpoints per cycle, as the service takes it; the in-flight counts in it
    // are live, so each reading sees the requests this cycle has already released.
    const signals = this.flowPool.signals(micros(now));
    runDispatchCycle(
      this.flowQueues,
      () => this.detector.saturation(signals),
      (item) => {
        item.payload.timings.flowQueueMs = now / 1000 - item.enqueuedAtUs / 1000;
        this.release(item.payload);
      },
    );
  }

  /**
   * One wake-up, at the earliest TTL deadline among the queued requests, as the service keeps one
   * timer: a request dispatched at once never puts a TTL event on the agenda.
   */
  private armTtl(): void {
    const atUs = this.flowQueues.nextExpiryUs();
    if (atUs === undefined) return;
    if (this.ttlWakeUs !== undefined && this.ttlWakeUs <= atUs) return;
    this.ttlWakeUs = atUs;
    this.queue.at(atUs, 'ttl', () => {
      if (this.ttlWakeUs !== atUs) return; // superseded by an earlier one
      this.ttlWakeUs = undefined;
      this.expireQueued();
      this.armTtl();
    });
  }

  private expireQueued(): void {
    const now = this.queue.nowUs;
    for (const item of this.flowQueues.expire(micros(now))) this.end(item.payload, now + this.hops.returnUs, { reason: 'ttl_expired', stage: 'flow' });
  }

  /** Counted in flight before it leaves, so the next saturation reading sees it. */
  private release(flight: Flight): void {
    const now = this.queue.nowUs;
    this.flowPool.dispatched(flight.id, flight.inputTokens + flight.maxTokens, micros(now), micros(Number.POSITIVE_INFINITY));
    this.queue.at(now + this.hops.flowUs + this.hops.transitUs, 'route', () => this.route(flight));
  }

  private route(flight: Flight): void {
    const now = this.queue.nowUs;
    const decision = this.routing.route(flight, this.routerCluster.view(micros(now), this.routerPrefix), micros(now));
    flight.timings.routingMs = this.hops.routerUs / 1000;
    if (!decision) {
      this.flowPool.done(flight.id);
      this.end(flight, now + this.hops.routerUs + this.hops.returnUs, { reason: 'no_worker', stage: 'router' });
      return;
    }
    const instance = this.byId.get(decision.instance.instanceId)!;
    this.routerCluster.dispatched(instance.id, flight.id);
    this.routerPrefix.record(instance.id, flight.blockHashes);
    flight.instance = instance;
    this.queue.at(now + this.hops.routerUs + this.hops.transitUs, 'workerArrive', () => this.workerArrive(flight, instance));
  }

  private workerArrive(flight: Flight, instance: Instance): void {
    const now = this.queue.nowUs;
    flight.workerArrivalUs = now;
    const accepted = instance.engine.enqueue(flight, micros(now));
    if (!accepted.accepted) {
      this.leftInstance(flight, instance, now);
      this.end(flight, now + this.hops.returnUs, { reason: 'unservable', stage: 'worker' });
      return;
    }
    if (this.options.config.worker.loadIntervalMs === 0) this.publishSnapshot(instance);
    if (!instance.busy) this.plan(instance, now);
  }

  // ── instances: steps back to back, as the worker's scheduler runs them ─────────────────────

  private plan(instance: Instance, atUs: number): void {
    const { engine } = instance;
    if (engine.canStep(micros(atUs))) {
      const result = engine.step(micros(atUs));
      instance.busy = true;
      for (const { requestId } of result.admitted) {
        const flight = this.flights.get(requestId);
        if (flight && flight.admittedUs === undefined) flight.admittedUs = atUs;
      }
      if (this.admissionCluster.keepsPrefixIndex && (result.kvStored.length > 0 || result.kvRemoved.length > 0)) {
        this.admissionCluster.onKv({ instanceId: instance.id, atUs: micros(atUs), stored: [...result.kvStored], removed: [...result.kvRemoved] });
      }
      this.stampTokens(instance, result, atUs + result.durationUs + result.outputDelayUs);
      this.queue.at(atUs + result.durationUs, 'stepEnd', () => this.stepEnd(instance, result));
      return;
    }
    const ready = engine.nextReadyUs();
    if (ready === undefined || (instance.readyAtUs !== undefined && instance.readyAtUs <= ready)) return;
    instance.readyAtUs = ready;
    this.queue.at(ready, 'workerReady', () => {
      instance.readyAtUs = undefined;
      if (!instance.busy) this.plan(instance, this.queue.nowUs);
    });
  }

  /**
   * Writes down the tokens of a step that starts now: the client receives them at the step's end
   * plus α2 (`tokenUs`), plus the return hop. Done as the step starts, not as it ends, because the
   * engine has just read these flights (each is its request) and they are still in the CPU's
   * cache; the result is the same, as nothing reads a flight's tokens before its step ends (its
   * record is written at completion, which is a step's end).
   */
  private stampTokens(instance: Instance, result: StepResult<Flight>, tokenUs: number): void {
    const step = instance.stepTimes.push((tokenUs + this.hops.returnUs) / 1000);
    for (const { request: flight, count } of result.tokens) {
      if (count === 0) continue;
      if (count !== 1) throw new Error(`a step gave ${flight.id} ${count} tokens: the twin counts at most one per step (StepTokens.count)`);
      if (flight.firstTokenUs === undefined) flight.firstTokenUs = tokenUs;
      if (flight.runStart + flight.runLength === step) flight.runLength++;
      else {
        if (flight.runLength > 0) (flight.earlierRuns ??= []).push(flight.runStart, flight.runLength);
        flight.runStart = step;
        flight.runLength = 1;
      }
    }
  }

  /** When the client received each of the flight's tokens, in ms: the times of the steps that gave them. */
  private tokenTimesOf(flight: Flight): number[] {
    if (flight.runLength === 0) return [];
    const { stepTimes } = flight.instance!;
    const runs = flight.earlierRuns;
    let count = flight.runLength;
    if (runs) for (let r = 1; r < runs.length; r += 2) count += runs[r]!;
    const times = new Array<number>(count);
    let at = 0;
    if (runs) for (let r = 0; r < runs.length; r += 2) at = stepTimes.copyRun(times, at, runs[r]!, runs[r + 1]!);
    stepTimes.copyRun(times, at, flight.runStart, flight.runLength);
    return times;
  }

  private stepEnd(instance: Instance, result: StepResult<Flight>): void {
    const endUs = this.queue.nowUs;
    const tokenUs = endUs + result.outputDelayUs;
    for (const requestId of result.completed) {
      const flight = this.flights.get(requestId);
      if (!flight) continue;
      this.leftInstance(flight, instance, tokenUs);
      this.end(flight, tokenUs + this.hops.returnUs, { reason: 'ok' }, tokenUs);
    }
    instance.busy = false;
    if (this.options.config.worker.loadIntervalMs === 0) this.publishSnapshot(instance);
    this.plan(instance, endUs);
    if (this.options.checkInvariants) this.checkInvariants(instance);
  }

  private checkInvariants(instance: Instance): void {
    instance.engine.checkInvariants();
    if (instance.engine.hasWork() && !instance.busy && instance.readyAtUs === undefined) {
      throw new Error(`work conservation broken: ${instance.id} holds requests with no step or wake-up scheduled at ${this.queue.nowUs} µs`);
    }
  }

  /** The instance's done event reaches the router and flow control one transit later. */
  private leftInstance(flight: Flight, instance: Instance, atUs: number): void {
    this.queue.at(atUs + this.hops.transitUs, 'done', () => {
      this.routerCluster.done(instance.id, flight.id);
      if (this.flowPool.done(flight.id)) this.dispatch();
    });
  }

  // ── what instances report ──────────────────────────────────────────────────────────────────

  private publishSnapshot(instance: Instance): void {
    const rank = this.instances.indexOf(instance);
    const snapshot: LoadSnapshot = { ...instance.engine.snapshot(), instanceId: instance.id, workerId: 'twin', rank, atUs: micros(this.queue.nowUs) };
    this.admissionCluster.onSnapshot(snapshot);
    this.flowPool.onSnapshot(snapshot);
    this.routerCluster.onSnapshot(snapshot);
    // A fresher snapshot can show freed capacity.
    this.dispatch();
  }

  /** Every instance publishes on its interval while there is anything left to do. */
  private publishSnapshots(): void {
    if (this.outstanding === 0) return;
    // Requests outstanding with nothing on the agenda that could move them: a bug, not a long wait.
    if (!this.queue.hasWork) throw new TwinStalledError(this.outstanding, this.queue.nowUs);
    for (const instance of this.instances) this.publishSnapshot(instance);
    const interval = this.options.config.worker.loadIntervalMs > 0 ? this.options.config.worker.loadIntervalMs * 1000 : IDLE_SNAPSHOT_US;
    this.queue.at(this.queue.nowUs + interval, 'snapshot', () => this.publishSnapshots());
  }

  private refreshRouter(): void {
    if (this.outstanding === 0) return;
    this.routerCluster.refresh();
    this.queue.at(this.queue.nowUs + this.options.config.router.snapshotRefreshIntervalMs * 1000, 'refresh', () => this.refreshRouter());
  }

  // ── the client's record ────────────────────────────────────────────────────────────────────

  private end(flight: Flight, clientUs: number, how: { reason: OutcomeReason; stage?: Stage }, lastTokenUs?: number): void {
    this.flights.delete(flight.id);
    this.outstanding--;
    const ms = (us: number) => us / 1000;
    const { request } = flight;
    // Records are written out field by field, not spread from a common part: a million of them
    // stay on the heap, and with literals the scavenges promote 0.6–0.8 KB a request instead of
    // 1.8–2.1 (at 100,000 requests; docs/benchmarks.md). The fields keep one order, the JSON's.
    if (how.reason !== 'ok') {
      this.records[flight.position] = {
        id: flight.id,
        tenant: request.tenantId,
        sloClass: request.sloClass,
        priority: flight.priority,
        arrivalMs: ms(flight.arrivalUs),
        endMs: ms(clientUs),
        attempts: 1,
        status: httpStatusOf(how.reason),
        outputTokens: 0,
        outcome: outcomeOf(how.reason),
        reason: how.reason,
        ...(how.stage ? { stage: how.stage } : {}),
      };
      return;
    }
    const admitted = flight.admittedUs ?? flight.workerArrivalUs!;
    const firstToken = flight.firstTokenUs ?? lastTokenUs!;
    const { admissionMs, flowQueueMs, routingMs } = flight.timings;
    // Every served request passed admission, flow control and the router, so all three are set.
    const timings: ServedTimings = {
      admissionMs: admissionMs!,
      flowQueueMs: flowQueueMs!,
      routingMs: routingMs!,
      workerQueueMs: ms(admitted - flight.workerArrivalUs!),
      prefillMs: ms(firstToken - admitted),
      decodeMs: ms(lastTokenUs! - firstToken),
    };
    const tokenTimesMs = this.tokenTimesOf(flight);
    const record: RunRecord = {
      id: flight.id,
      tenant: request.tenantId,
      sloClass: request.sloClass,
      priority: flight.priority,
      arrivalMs: ms(flight.arrivalUs),
      endMs: ms(clientUs),
      attempts: 1,
      status: httpStatusOf(how.reason),
      outcome: 'completed',
      outputTokens: tokenTimesMs.length,
      tokenTimesMs,
      firstTokenMs: tokenTimesMs[0]!,
      instance: flight.instance!.id,
      timings,
    };
    // With max_tokens 0 a request is served without a token, and so without a first-token time
    // (rare: the record is rebuilt without the field rather than every record built in two steps).
    if (tokenTimesMs.length === 0) {
      const { firstTokenMs: _none, ...withoutFirstToken } = record;
      this.records[flight.position] = withoutFirstToken;
      return;
    }
    this.records[flight.position] = record;
  }
}

/** The twin found requests that nothing on its agenda could ever end (an invariant broken). */
export class TwinStalledError extends Error {
  override readonly name = 'TwinStalledError';
  constructor(outstanding: number, atUs: number) {
    super(`${outstanding} requests can never end: nothing left on the agenda at ${(atUs / 1e6).toFixed(3)} s of virtual time`);
  }
}

/** Runs a workload through a fresh twin. */
export function simulate(requests: readonly WorkloadRequest[], options: TwinOptions): TwinResult {
  return new Twin(options).run(requests);
}
