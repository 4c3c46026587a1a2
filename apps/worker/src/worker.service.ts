import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Subscription } from '@nats-io/transport-node';
import { z } from 'zod';
import { SERVICE_CONTEXT, type ServiceContext } from '@sluice/bus';
import { CancelRequestSchema, IDLE_SNAPSHOT_REFRESH_MS, InferenceRequestSchema, SetWorkerFaultsSchema, subjects, type WorkerFaults } from '@sluice/contracts';
import type { SluiceConfig } from '@sluice/config';
import { VllmEngine, createLatencyModel, type LatencyProfile } from '@sluice/engine';
import { seedOf, seededRandom } from '@sluice/collections';
import { InstanceHost, type InstanceClock } from './instance-host.js';
import { StepScheduler } from './step-scheduler.js';
import { createWorkerMetrics, type WorkerMetrics } from './worker.metrics.js';

export const LATENCY_PROFILE = Symbol('sluice.latency-profile');

/** How long a stopping worker lets its instances finish what they hold before it goes. */
const DRAIN_GRACE_MS = 5_000;

/**
 * A worker process hosting N instances (data-parallel ranks of one worker), all driven by one
 * real-time scheduler. Each instance has its own subjects.
 */
@Injectable()
export class WorkerService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('worker');
  private readonly hosts: InstanceHost[] = [];
  private readonly subscriptions: Subscription[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly scheduler: StepScheduler;
  private readonly clock: InstanceClock;
  private readonly metrics: WorkerMetrics;

  constructor(
    @Inject(SERVICE_CONTEXT) private readonly service: ServiceContext<SluiceConfig>,
    @Inject(LATENCY_PROFILE) private readonly profile: LatencyProfile,
  ) {
    const { timeScale } = service.config.worker;
    const metrics = (this.metrics = createWorkerMetrics(service.metrics));
    this.scheduler = new StepScheduler(() => performance.now() * 1000, timeScale, (errorUs) => metrics.stepError.observe(errorUs / 1e6));
    this.clock = {
      wallMs: (engineUs) => performance.timeOrigin + engineUs / timeScale / 1000,
      realSeconds: (engineUs) => engineUs / timeScale / 1e6,
    };
  }

  onModuleInit(): void {
    const { worker } = this.service.config;
    const model = this.service.config.models.find((m) => m.name === worker.model)!;
    const latency = createLatencyModel(this.profile.latencyModel, this.profile);
    const totalKvBlocks = worker.kvBlocks ?? this.profile.totalKvBlocks;
    const workerId = this.service.instanceId;
    for (let rank = 0; rank < worker.instances; rank++) {
      const engine = new VllmEngine({
        model: latency,
        totalKvBlocks,
        maxModelLen: Math.min(model.maxModelLen, this.profile.maxModelLen),
        maxRunning: worker.maxRunning,
        maxBatchTokens: worker.maxBatchTokens,
        scheduler: worker.scheduler,
      });
      const identity = { instanceId: `${workerId}-r${rank}`, workerId, rank, model: model.name, totalKvBlocks };
      const host = new InstanceHost(identity, engine, this.service.bus, this.service.tracer, this.metrics, this.clock, seededRandom(seedOf(identity.instanceId)), worker.loadIntervalMs === 0);
      this.hosts.push(host);
      this.subscriptions.push(
        this.service.bus.serve(subjects.workerSubmit(host.instanceId), InferenceRequestSchema, ({ data, traceContext }) => {
          if (host.accept(data, traceContext, this.scheduler.nowUs())) this.scheduler.wake(host);
        }),
      );
      host.publishLifecycle('register');
    }
    const bus = this.service.bus;
    this.subscriptions.push(
      bus.listen(subjects.requestCancel(), CancelRequestSchema, ({ data }) => {
        for (const host of this.hosts) if (host.holds(data.requestId)) host.cancel(data.requestId, this.scheduler.nowUs(), data.reason);
      }),
      bus.listen(subjects.workerDiscover(), z.object({}), () => {
        for (const host of this.hosts) host.publishLifecycle('register');
      }),
      bus.answer(subjects.control('worker', 'set-faults'), SetWorkerFaultsSchema, ({ instanceId, faults }) => this.setFaults(instanceId, faults)),
      bus.answer(subjects.control('worker', 'get-faults'), z.object({ instanceId: z.string().optional() }), ({ instanceId }) => this.setFaults(instanceId, {})),
    );
    this.timers.push(
      setInterval(() => {
        for (const host of this.hosts) host.publishLifecycle('heartbeat');
      }, worker.heartbeatIntervalMs),
    );
    // loadIntervalMs = 0: each host publishes on every change, and also at a slow refresh while
    // idle, so a reader that judges snapshots by their age (the utilization detector's staleness)
    // can tell "nothing changed" from "the instance went quiet".
    this.timers.push(
      setInterval(() => {
        for (const host of this.hosts) host.publishLoad();
      }, worker.loadIntervalMs > 0 ? worker.loadIntervalMs : IDLE_SNAPSHOT_REFRESH_MS),
    );
    this.logger.log(`${worker.instances} instances of ${model.name} (profile ${this.profile.name}, ${totalKvBlocks} KV blocks, timeScale ${worker.timeScale})`);
  }

  /** Applies fault knobs to one instance or all of this process's; undefined when none is here. */
  private setFaults(instanceId: string | undefined, faults: Partial<WorkerFaults>): Record<string, WorkerFaults> | undefined {
    const targets = this.hosts.filter((h) => instanceId === undefined || h.instanceId === instanceId);
    if (targets.length === 0) return undefined;
    const result: Record<string, WorkerFaults> = {};
    for (const host of targets) {
      result[host.instanceId] = host.setFaults(faults);
      if (Object.keys(faults).length > 0) this.logger.log(`faults of ${host.instanceId}: ${JSON.stringify(result[host.instanceId])}`);
    }
    return result;
  }

  /** Graceful shutdown: stop taking work, let in-flight requests finish, then deregister. */
  async onModuleDestroy(): Promise<void> {
    for (const host of this.hosts) host.publishLifecycle('drain');
    for (const sub of this.subscriptions) sub.unsubscribe();
    const deadline = Date.now() + DRAIN_GRACE_MS;
    while (this.hosts.some((h) => h.hasWork()) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    this.scheduler.stop();
    for (const timer of this.timers) clearInterval(timer);
    for (const host of this.hosts) host.publishLifecycle('deregister');
  }
}
