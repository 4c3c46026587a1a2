import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Subscription } from '@nats-io/transport-node';
import { z } from 'zod';
import { SERVICE_CONTEXT, type ServiceContext } from '@sluice/bus';
import { CancelRequestSchema, InferenceRequestSchema, subjects } from '@sluice/contracts';
import type { SluiceConfig } from '@sluice/config';
import { FixedStepEngine } from '@sluice/engine';
import { InstanceHost } from './instance-host.js';
import { StepScheduler } from './step-scheduler.js';
import { createWorkerMetrics } from './worker.metrics.js';

/** How long a stopping worker lets its instances finish what they hold before it goes. */
const DRAIN_GRACE_MS = 5_000;

/**
 * A worker process hosting N instances (data-parallel ranks of one worker), driven by one
 * real-time scheduler. Each instance has its own subjects.
 */
@Injectable()
export class WorkerService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('worker');
  private readonly hosts: InstanceHost[] = [];
  private readonly subscriptions: Subscription[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly scheduler: StepScheduler;
  /** Monotonic µs since the process's time origin, and the matching wall clock. */
  private readonly nowUs = () => performance.now() * 1000;
  private readonly wallMs = (monotonicUs: number) => performance.timeOrigin + monotonicUs / 1000;

  constructor(@Inject(SERVICE_CONTEXT) private readonly service: ServiceContext<SluiceConfig>) {
    this.scheduler = new StepScheduler(this.nowUs);
  }

  onModuleInit(): void {
    const { worker, models } = this.service.config;
    const model = models.find((m) => m.name === worker.model)!;
    const metrics = createWorkerMetrics(this.service.metrics);
    const workerId = this.service.instanceId;
    for (let rank = 0; rank < worker.instances; rank++) {
      const engine = new FixedStepEngine({
        stepTimeUs: worker.stepTimeMs * 1000,
        maxRunning: 256,
        totalKvBlocks: worker.kvBlocks,
        maxModelLen: model.maxModelLen,
      });
      const identity = { instanceId: `${workerId}-r${rank}`, workerId, rank, model: model.name, totalKvBlocks: worker.kvBlocks };
      const host = new InstanceHost(identity, engine, this.service.bus, this.service.tracer, metrics, this.wallMs);
      this.hosts.push(host);
      this.subscriptions.push(
        this.service.bus.serve(subjects.workerSubmit(host.instanceId), InferenceRequestSchema, ({ data, traceContext }) => {
          if (host.accept(data, traceContext, this.nowUs())) this.scheduler.wake(host);
        }),
      );
      host.publishLifecycle('register');
    }
    this.subscriptions.push(
      this.service.bus.listen(subjects.requestCancel(), CancelRequestSchema, ({ data }) => {
        for (const host of this.hosts) if (host.holds(data.requestId)) host.cancel(data.requestId, this.nowUs(), data.reason);
      }),
      this.service.bus.listen(subjects.workerDiscover(), z.object({}), () => {
        for (const host of this.hosts) host.publishLifecycle('register');
      }),
    );
    this.timers.push(
      setInterval(() => {
        for (const host of this.hosts) host.publishLifecycle('heartbeat');
      }, worker.heartbeatIntervalMs),
      setInterval(() => {
        for (const host of this.hosts) {
          const s = host.publishLoad();
          const labels = { model_name: host.identity.model, engine: String(host.identity.rank) };
          metrics.running.set(labels, s.batchSize);
          metrics.waiting.set(labels, s.queueDepth);
          metrics.kvUsage.set(labels, s.kvUtilization);
        }
      }, worker.loadIntervalMs),
    );
    this.logger.log(`${worker.instances} instances of ${model.name} up`);
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
