import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { epochMicros, WakeUpTimers } from '@sluice/bus';
import { SERVICE_CONTEXT, type ServiceContext } from '@sluice/service';
import type { CancelRequest, InferenceRequest, LifecycleEvent, LoadSnapshot, RequestDone } from '@sluice/contracts';
import type { SluiceConfig } from '@sluice/config';
import type { FlowControlRegistry } from '@sluice/policies';
import { FlowControlStage, flowControlSettingsFrom, type FlowControlWakeUp } from '@sluice/stages';
import { FLOW_CONTROL_REGISTRY } from './flow-control.registry.js';
import { createFlowControlMetrics } from './flow-control.metrics.js';
import { FlowControlOnBus, type FlowCarried } from './flow-control-on-bus.js';

/**
 * The flow-control stage on the bus: requests from admission, cancels and worker events in
 * (libs/stages FlowControlStage holds every rule: queues, the gated dispatch cycle, TTLs, legacy
 * shedding); `FlowControlOnBus` turns its effects into handoffs to the router, error frames, spans
 * and the Endpoint Picker's metrics.
 */
@Injectable()
export class FlowControllerService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('flow-controller');
  private readonly stage: FlowControlStage<InferenceRequest, FlowCarried>;
  private readonly timers: WakeUpTimers<FlowControlWakeUp>;
  private readonly onBus: FlowControlOnBus;

  constructor(
    @Inject(SERVICE_CONTEXT) private readonly service: ServiceContext<SluiceConfig>,
    @Inject(FLOW_CONTROL_REGISTRY) registry: FlowControlRegistry,
  ) {
    const config = service.config.flowController;
    const metrics = createFlowControlMetrics(service.metrics, {
      flows: () => this.stage.flowStats(),
      queuedByModel: () => this.stage.queuedByModel(),
      saturation: () => this.stage.saturation(epochMicros()),
    });
    this.timers = new WakeUpTimers((kind, atUs, nowUs) => this.stage.wake(kind, atUs, nowUs), epochMicros);
    this.onBus = new FlowControlOnBus(service, metrics, config.enabled, (request, carried, message) => this.stage.handoffRefused(request, carried, message));
    this.stage = new FlowControlStage(flowControlSettingsFrom(config, registry), this.onBus, this.timers);
  }

  onModuleInit(): void {
    this.stage.start(epochMicros());
    const detector = this.service.config.flowController.saturationDetector.type;
    this.logger.log(this.stage.mode === 'queue' ? `queuing with ${detector}` : `flow control disabled: pass-through, sheddable requests shed while ${detector} says saturated`);
  }

  /** Shutdown: every queued request is evicted with 500 before the bus drains (docs/behaviour.md §3). */
  onModuleDestroy(): void {
    const evicted = this.stage.stop();
    this.timers.clear();
    if (evicted > 0) this.logger.warn(`shutting down: evicted ${evicted} queued requests`);
  }

  submit(request: InferenceRequest): void {
    this.stage.submit(request, epochMicros(), this.onBus.received(request, this.stage.mode));
  }

  onLifecycle(event: LifecycleEvent): void {
    this.stage.onLifecycle(event, epochMicros());
  }

  onSnapshot(snapshot: LoadSnapshot): void {
    this.stage.onSnapshot(snapshot, epochMicros());
  }

  onDone(done: RequestDone): void {
    this.stage.onDone(done, epochMicros());
  }

  onCancel(cancel: CancelRequest): void {
    this.stage.onCancel(cancel, epochMicros());
  }
}
