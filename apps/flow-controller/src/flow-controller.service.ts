import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { epochMicros, suspendExpiryWhileDisconnected, WakeUpTimers } from '@sluice/bus';
import { RequestIntake, SERVICE_CONTEXT, type ServiceContext } from '@sluice/service';
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
  private readonly intake: RequestIntake;

  constructor(
    @Inject(SERVICE_CONTEXT) private readonly service: ServiceContext<SluiceConfig>,
    @Inject(FLOW_CONTROL_REGISTRY) registry: FlowControlRegistry,
  ) {
    const config = service.config.flowController;
    const metrics = createFlowControlMetrics(service.metrics, service.config.inferencePool, {
      queuedByModel: () => this.stage.queuedByModel(),
      saturation: () => this.stage.saturation(epochMicros()),
      trackedFlows: () => this.stage.trackedFlows,
    });
    this.timers = new WakeUpTimers((kind, atUs, nowUs) => this.stage.wake(kind, atUs, nowUs), epochMicros);
    this.intake = new RequestIntake(service, 'flow');
    this.onBus = new FlowControlOnBus(service, metrics, config.enabled, this.intake, (request, carried, message, why) => this.stage.handoffRefused(request, carried, message, why));
    this.stage = new FlowControlStage(flowControlSettingsFrom(config, registry), this.onBus, this.timers);
    suspendExpiryWhileDisconnected(service.bus, this.stage);
  }

  onModuleInit(): void {
    this.stage.start(epochMicros());
    const detector = this.service.config.flowController.saturationDetector.type;
    this.logger.log(this.stage.mode === 'queue' ? `queuing with ${detector}` : `flow control disabled: pass-through, sheddable requests shed while ${detector} says saturated`);
  }

  /**
   * Shutdown: every queued request is handed back to its gateway before the bus drains, and the
   * gateway queues it again at another flow controller, or this one restarted (docs/behaviour.md §6).
   */
  onModuleDestroy(): void {
    const handedBack = this.stage.stop();
    this.timers.clear();
    if (handedBack > 0) this.logger.warn(`shutting down: handed ${handedBack} queued requests back to their gateways`);
  }

  submit(request: InferenceRequest): void {
    const taken = this.intake.take(request);
    if (!taken) return; // a duplicate, superseded or cancelled copy
    // An older attempt still queued here (its cancel was lost): it leaves the queue first.
    if (taken === 'supersede') this.stage.onCancel({ requestId: request.id, reason: 'superseded', attempt: request.attempt - 1 }, epochMicros());
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
    // A cancel of an older attempt leaves the newer one queued here alone.
    if (!this.intake.cancel(cancel)) return;
    this.stage.onCancel(cancel, epochMicros());
  }
}
