import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Subscription } from '@nats-io/transport-node';
import { z } from 'zod';
import { seedOf, seededRandom } from '@sluice/collections';
import { epochMicros, sendMigrateFrame, WakeUpTimers } from '@sluice/bus';
import { RequestIntake, SERVICE_CONTEXT, type ServiceContext } from '@sluice/service';
import {
  CancelRequestSchema,
  cancelledAs,
  InferenceRequestSchema,
  PrefilledSchema,
  PrefillJobSchema,
  SetWorkerFaultsSchema,
  SetWorkerInstancesSchema,
  micros,
  subjects,
  type InferenceRequest,
  type RequestDone,
  type WorkerFaults,
  type WorkerInstanceCounts,
} from '@sluice/contracts';
import type { SluiceConfig } from '@sluice/config';
import { createLatencyModel, servesDecode, servesPrefill, type LatencyProfile } from '@sluice/engine';
import { WorkerStage, workerSettingsFrom, type InstanceCore, type WorkerWakeUp } from '@sluice/stages';
import { Coalesced } from './coalesced.js';
import { DirectReplies } from './direct-replies.js';
import { InstanceHttpServer } from './instance-http-server.js';
import { InstanceIntakes } from './instance-intakes.js';
import { createInstanceStatesGauge } from './instance-states.metrics.js';
import { createKvTransferMetrics } from './kv-transfer.metrics.js';
import { liveHeld, type LiveHeld } from './live-held.js';
import { RealTimeWakeUps } from './real-time-wake-ups.js';
import { WorkerOnBus, type EngineClock } from './worker-on-bus.js';
import type { WorkerReadiness } from './worker-readiness.js';
import { createWorkerMetrics } from './worker.metrics.js';

export const LATENCY_PROFILE = Symbol('sluice.latency-profile');
export const WORKER_READINESS = Symbol('sluice.worker-readiness');

/**
 * A worker process on the bus: N instances of one model (libs/stages WorkerStage holds every rule:
 * steps back to back, fault knobs, what an instance publishes and when), driven in real time by
 * one scheduler. Each instance has its own submit subject, open while the instance is ready
 * (an autoscaler starts and parks instances: `set-instances`); cancels, discovery and fault
 * control reach the process.
 */
@Injectable()
export class WorkerService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('worker');
  private readonly stage: WorkerStage<LiveHeld>;
  private readonly scheduler: RealTimeWakeUps;
  private readonly ticks: WakeUpTimers<WorkerWakeUp>;
  private readonly subscriptions: Subscription[] = [];
  /** Prefill-job subjects (worker.roles): unsubscribed first at a drain, so decode instances prefill elsewhere at once. */
  private readonly submits: Subscription[] = [];
  /** Each instance's submit subject, open while it takes work. */
  private readonly intakes: InstanceIntakes;
  /** Shutting down: no instance starts any more. */
  private stopping = false;
  private readonly intake: RequestIntake;
  /** Some instances prefill for others (worker.roles). */
  private readonly disaggregated: boolean;
  /** Answers to `discover`, at most one per 100 ms however many are asked. */
  private readonly announce = new Coalesced(100, () => this.stage.announce(this.scheduler.nowUs()));
  /** worker.http: each instance's own vLLM HTTP server, and the replies of the requests they serve. */
  private readonly direct: DirectReplies | undefined;
  private readonly httpServers: InstanceHttpServer[] = [];

  constructor(
    @Inject(SERVICE_CONTEXT) private readonly service: ServiceContext<SluiceConfig>,
    @Inject(LATENCY_PROFILE) private readonly profile: LatencyProfile,
    @Inject(WORKER_READINESS) readiness: WorkerReadiness,
  ) {
    const { worker, models } = service.config;
    const { timeScale } = worker;
    const model = models.find((m) => m.name === worker.model)!;
    const settings = {
      ...workerSettingsFrom(worker, model.maxModelLen, profile, createLatencyModel(profile.latencyModel, profile), service.instanceId),
      kvResidencySample: worker.kvCacheMetricsSample,
    };
    // The request_tokens buckets end at the context length the instances enforce (vLLM's max_model_len).
    const metrics = createWorkerMetrics(service.metrics, { maxModelLen: settings.maxModelLen, kvResidency: worker.kvCacheMetricsSample > 0 });
    // How far from its modelled end each step really ended: the timing-error figure.
    const stepError = metrics.stepError.labels();
    this.scheduler = new RealTimeWakeUps(() => performance.now() * 1000, timeScale, (lateRealUs) => stepError.observe(Math.abs(lateRealUs) / 1e6));
    const clock: EngineClock = {
      // The engine clock is the process's monotonic one; the wire's is the shared wall clock
      // (epochMicros): a time is carried over as its distance from now.
      wallUs: (engineUs) => micros(epochMicros() + Math.round((engineUs - this.scheduler.nowUs()) / timeScale)),
      realSeconds: (engineUs) => engineUs / timeScale / 1e6,
    };
    this.ticks = new WakeUpTimers((kind, atUs, nowUs) => this.stage.wake(kind, atUs, nowUs), () => this.scheduler.nowUs(), timeScale);
    const disaggregated = settings.kvTransfer && {
      metrics: createKvTransferMetrics(service.metrics),
      refused: (instance: InstanceCore<LiveHeld>, requestId: string) => void instance.prefillRefused(requestId, this.scheduler.nowUs()),
    };
    this.direct = worker.http.enabled ? new DirectReplies() : undefined;
    this.intakes = new InstanceIntakes(
      (instanceId) => this.stage.slots.takesWork(instanceId),
      (instanceId) => this.serveSubmit(this.stage.instance(instanceId)!),
    );
    const effects = new WorkerOnBus(service.bus, service.tracer, metrics, clock, this.scheduler, (kind, atUs) => this.ticks.wakeAt(kind, atUs), disaggregated, this.direct, this.intakes);
    this.stage = new WorkerStage(settings, effects, (instanceId) => seededRandom(seedOf(instanceId)));
    if (this.direct) {
      const { limits, bodyTimeoutMs } = service.config.gateway;
      for (const instance of this.stage.instances) {
        this.httpServers.push(
          new InstanceHttpServer({
            instance,
            notReady: () => {
              const state = this.stage.slots.stateOf(instance.instanceId);
              return state === 'ready' || state === undefined ? undefined : state;
            },
            model: { name: worker.model, maxModelLen: settings.maxModelLen },
            direct: this.direct,
            nowUs: () => this.scheduler.nowUs(),
            epochUs: epochMicros,
            metricsText: () => service.metrics.metrics(),
            maxBodyBytes: limits.maxBodyBytes,
            bodyTimeoutMs,
          }),
        );
      }
    }
    this.disaggregated = settings.kvTransfer !== undefined;
    // Every instance's series exist from the start, at zero, as a vLLM pod's do.
    for (const instance of this.stage.instances) effects.bind(instance);
    createInstanceStatesGauge(service.metrics, worker.instances, () => this.stage.slots.counts());
    this.intake = new RequestIntake(service, 'worker');
    // worker.loadModelAtStart: ready once the instances it starts with have loaded their model.
    readiness.follow(() => (this.stage.slots.allLoaded() ? null : `instances loading their model (${settings.startupUs / 1000} ms of model time, worker.loadModelAtStart)`));
  }

  async onModuleInit(): Promise<void> {
    const { bus } = this.service;
    const { worker } = this.service.config;
    // Submit subjects open as instances register (InstanceIntakes, from stage.start below).
    for (const instance of this.stage.instances) {
      if (!this.disaggregated) continue;
      const role = instance.identity.role ?? 'both';
      if (servesPrefill(role)) {
        // A job is no request of the gateway's: no intake (it would name this instance the holder).
        // The prompt alone: max_tokens 1, as llm-d's sidecar and vLLM's P/D proxy send it.
        this.submits.push(
          bus.serve(subjects.workerPrefill(instance.instanceId), PrefillJobSchema, ({ data, traceContext }) => {
            instance.acceptPrefillJob({ ...liveHeld(data.request, traceContext), maxTokens: 1, prefillFor: data.decodeInstanceId }, this.scheduler.nowUs());
          }),
        );
      }
      if (servesDecode(role)) {
        this.subscriptions.push(
          bus.listen(subjects.workerPrefilled(instance.instanceId), PrefilledSchema, ({ data }) => {
            const waiting = instance.holding(data.requestId);
            if (waiting?.request.attempt !== data.attempt) return; // an answer for an attempt it no longer runs
            instance.prefilled(data.requestId, data.outcome, data.prefillInstanceId, this.scheduler.nowUs());
          }),
        );
      }
    }
    this.subscriptions.push(
      bus.listen(subjects.requestCancel(), CancelRequestSchema, ({ data }) => {
        this.intake.cancel(data);
        // A cancel names the attempts it ends: a newer attempt of the same request stays; one that
        // names a holder ends only that instance's copy (a second copy of the attempt).
        // A disaggregated request's prefill job goes with its decode copy (same id, same attempt).
        for (const holding of this.stage.holdings(data.requestId)) {
          if (data.holder !== undefined && holding.instance.instanceId !== data.holder && holding.request.prefillFor !== data.holder) continue;
          if (holding.request.request.attempt <= (data.attempt ?? Number.MAX_SAFE_INTEGER)) {
            holding.instance.cancel(data.requestId, cancelledAs(data.reason), this.scheduler.nowUs());
          }
        }
      }),
      bus.listen(subjects.workerDiscover(), z.object({}), () => this.announce.request()),
      bus.answer(subjects.control('worker', 'set-faults'), SetWorkerFaultsSchema, ({ instanceId, faults }) => this.setFaults(instanceId, faults)),
      bus.answer(subjects.control('worker', 'get-faults'), z.object({ instanceId: z.string().optional() }), ({ instanceId }) => this.stage.faults(instanceId)),
      // Every worker process hears it; only the one named answers (undefined: no reply), so the asker's first answer is its.
      bus.answer(subjects.control('worker', 'set-instances'), SetWorkerInstancesSchema, ({ workerId, instances }) => (workerId === this.service.instanceId ? this.setInstances(instances) : undefined)),
    );
    this.stage.start(this.scheduler.nowUs());
    await this.listenHttp();
    const totalKvBlocks = this.stage.instances[0]?.identity.totalKvBlocks;
    const { ready, starting, active } = this.stage.slots.counts();
    const life = active < worker.instances || starting > 0 ? `; ${ready} ready, ${starting} loading their model, ${worker.instances - active} parked for the autoscaler` : '';
    this.logger.log(`${worker.instances} instances of ${worker.model} (profile ${this.profile.name}, ${totalKvBlocks} KV blocks, timeScale ${worker.timeScale}${life})`);
  }

  /** One instance's submit subject, served while the instance takes work (InstanceIntakes opens and closes it). */
  private serveSubmit(instance: InstanceCore<LiveHeld>): Subscription {
    return this.service.bus.serve(subjects.workerSubmit(instance.instanceId), InferenceRequestSchema, ({ data, traceContext }) => {
      // Delivered as the subject closed (the instance began to drain): back to the router, elsewhere.
      if (!this.stage.slots.takesWork(instance.instanceId)) return this.notReady(data, instance.instanceId);
      // A duplicate, superseded or cancelled copy is acked (the bus acks on receipt) and not served.
      const taken = this.intake.take(data, instance.instanceId);
      if (!taken) return this.notServed(data.id, instance.instanceId);
      // A newer attempt of a request an instance here still runs: the older one goes first.
      if (taken === 'supersede') this.dropOlder(data.id, data.attempt);
      instance.accept(liveHeld(data, traceContext), this.scheduler.nowUs());
    });
  }

  /**
   * A copy that reached an instance as it stopped taking work is handed back as one that found no
   * responder would be: its gateway routes it again (no migration spent), and the router that
   * counted it here hears it is done.
   */
  private notReady(request: InferenceRequest, instanceId: string): void {
    sendMigrateFrame(this.service.bus, request, instanceId, 'next_unavailable', 'router');
    this.notServed(request.id, instanceId);
  }

  /**
   * `set-instances`: the autoscaler asks this process to run `count` of its instances (parked ones
   * start after the modelled model load; the newest leave by draining). Refused, with the reason,
   * when it cannot take effect.
   */
  private setInstances(count: number): WorkerInstanceCounts {
    const { instances } = this.service.config.worker;
    if (this.stopping) throw new Error(`worker ${this.service.instanceId} is shutting down: no instance starts any more`);
    if (this.disaggregated) throw new Error(`worker ${this.service.instanceId} runs prefill and decode roles (worker.roles): its instances are not scaled`);
    if (count > instances) throw new Error(`${count} is more than the ${instances} instances worker ${this.service.instanceId} hosts (worker.instances)`);
    const before = this.stage.slots.counts();
    const after = this.stage.setActive(count, this.scheduler.nowUs());
    if (after.active !== before.active) {
      this.logger.log(`instances: ${before.active} → ${count} asked (${after.starting} starting, ${after.ready} ready, ${after.draining} draining)`);
    }
    return { workerId: this.service.instanceId, ...after };
  }

  /**
   * worker.http: each instance's server on `basePort` + its rank (0: a port the system picks),
   * logged with the instance it serves. A port that cannot be had fails start-up.
   */
  private async listenHttp(): Promise<void> {
    const { host, http } = this.service.config.worker;
    for (const [index, server] of this.httpServers.entries()) {
      const instance = this.stage.instances[index]!;
      const port = await server.listen(host, http.basePort === 0 ? 0 : http.basePort + instance.rank);
      this.logger.log(`instance ${instance.instanceId} serves vLLM's HTTP API on http://${host}:${port}`);
    }
  }

  /**
   * A copy this instance will not serve still counts in flight here at whoever sent it (a router
   * counts until a done event): unless the instance runs the request already, whose own done is
   * to come, a done says it holds nothing of it. Without it a copy cancelled on its way, or one
   * whose id a forged submit had used first, stayed in the router's in-flight count for good.
   */
  private notServed(requestId: string, instanceId: string): void {
    if (this.stage.holdings(requestId).some((h) => h.instance.instanceId === instanceId)) return;
    const done: RequestDone = { requestId, instanceId, reason: 'cancelled', atUs: epochMicros() };
    this.service.bus.publish(subjects.workerDone(instanceId), done);
  }

  /** Lets go of a copy of the request older than `attempt`, wherever an instance of this process holds it. */
  private dropOlder(requestId: string, attempt: number): void {
    for (const holding of this.stage.holdings(requestId)) {
      if (holding.request.request.attempt < attempt) holding.instance.cancel(requestId, 'cancelled', this.scheduler.nowUs());
    }
  }

  /** Applies fault knobs to one instance or all of this process's; undefined when none is here. */
  private setFaults(instanceId: string | undefined, faults: Partial<WorkerFaults>): Record<string, WorkerFaults> | undefined {
    const result = this.stage.setFaults(instanceId, faults);
    for (const [id, knobs] of Object.entries(result ?? {})) this.logger.log(`faults of ${id}: ${JSON.stringify(knobs)}`);
    return result;
  }

  /**
   * Graceful shutdown (docs/behaviour.md §6): announce the drain (routing stops sending here at
   * once) and stop taking work (a handoff that still comes finds no responder and is routed
   * elsewhere); let running requests finish within the grace period; hand back what is left to
   * the gateways, which continue each on another instance; then deregister.
   */
  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    this.intakes.closeAll();
    this.stage.drain(this.scheduler.nowUs());
    for (const sub of this.submits) sub.unsubscribe();
    for (const server of this.httpServers) server.close();
    const grace = this.service.config.worker.shutdownGraceMs;
    const deadline = Date.now() + grace;
    while (this.stage.hasWork() && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const handedBack = this.stage.handBackAll(this.scheduler.nowUs());
    if (handedBack > 0) this.logger.warn(`drain: ${handedBack} requests unfinished after ${grace} ms, handed back to their gateways`);
    for (const sub of this.subscriptions) sub.unsubscribe();
    this.announce.stop();
    this.scheduler.stop();
    this.ticks.clear();
    this.stage.stop(this.scheduler.nowUs());
  }
}
