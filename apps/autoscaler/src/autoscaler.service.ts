import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { epochMicros, WakeUpTimers } from '@sluice/bus';
import type { SluiceConfig } from '@sluice/config';
import { PresenceEventSchema, subjectPatterns, type PresenceEvent } from '@sluice/contracts';
import { BusTransport, SERVICE_CONTEXT, WORKER_EVENT_ROUTES, WORKER_EVENT_SCHEMAS, type ServiceContext } from '@sluice/service';
import { AutoscalerStage, autoscalerSettingsFrom, type AutoscalerSettings, type AutoscalerWakeUp } from '@sluice/stages';
import { AutoscalerOnBus } from './autoscaler-on-bus.js';
import { createAutoscalerMetrics } from './autoscaler.metrics.js';

/**
 * The autoscaler process (docs/autoscaling.md): drives the pure core (libs/stages
 * AutoscalerStage: the HPA's algorithm, KEDA's activation) on the wall clock. It hears what the
 * bus carries (AUTOSCALER_ROUTES), decides every `autoscaler.intervalMs`, and asks worker
 * processes to run more or fewer instances (`set-instances`).
 */
@Injectable()
export class AutoscalerService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('autoscaler');
  private readonly stage: AutoscalerStage;
  private readonly timers: WakeUpTimers<AutoscalerWakeUp>;
  private readonly settings: AutoscalerSettings;

  constructor(@Inject(SERVICE_CONTEXT) service: ServiceContext<SluiceConfig>, transport: BusTransport) {
    const { autoscaler, worker, router } = service.config;
    // An instance or worker is gone when silent as long as the router judges an instance gone.
    this.settings = autoscalerSettingsFrom(autoscaler, worker, router.heartbeatTimeoutMs);
    this.timers = new WakeUpTimers((kind, atUs, nowUs) => this.stage.wake(kind, atUs, nowUs), epochMicros);
    const metrics = createAutoscalerMetrics(service.metrics, { sizes: () => this.stage.sizes() });
    this.stage = new AutoscalerStage(this.settings, new AutoscalerOnBus(service.bus, service.tracer, metrics, this.logger, this.settings), this.timers);
    transport.handle(WORKER_EVENT_ROUTES.lifecycle[0], WORKER_EVENT_SCHEMAS.lifecycle, (event) => this.stage.onLifecycle(event, epochMicros()));
    transport.handle(WORKER_EVENT_ROUTES.load[0], WORKER_EVENT_SCHEMAS.load, (snapshot) => this.stage.onSnapshot(snapshot));
    transport.handle(WORKER_EVENT_ROUTES.flowQueue[0], WORKER_EVENT_SCHEMAS.flowQueue, (report) => this.stage.onFlowQueue(report));
    transport.handle(subjectPatterns.workerPresence, PresenceEventSchema, (event) => this.presence(event));
  }

  onModuleInit(): void {
    this.stage.start(epochMicros());
    const { metric, target, minInstances, maxInstances, intervalUs } = this.settings;
    const per = target.kind === 'averageValue' ? ' per instance' : '';
    this.logger.log(`scales on ${metric} (target ${target.value}${per}), ${minInstances}…${maxInstances} instances, deciding every ${intervalUs / 1000} ms`);
  }

  onModuleDestroy(): void {
    this.stage.stop();
    this.timers.clear();
  }

  /** A worker process: up (started, or started again: its initial size), heartbeat, or down (what it ran no longer counts). */
  private presence(event: PresenceEvent): void {
    const nowUs = epochMicros();
    if (event.type === 'up') this.stage.onWorkerRestarted(event.processId, nowUs);
    else if (event.type === 'heartbeat') this.stage.onWorker(event.processId, nowUs);
    else this.stage.onWorkerGone(event.processId);
  }
}
