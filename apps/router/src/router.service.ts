import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { seedOf } from '@sluice/collections';
import { epochMicros, suspendExpiryWhileDisconnected, WakeUpTimers } from '@sluice/bus';
import { RequestIntake, SERVICE_CONTEXT, type ServiceContext } from '@sluice/service';
import type { CancelRequest, InferenceRequest, LifecycleEvent, LoadSnapshot, RequestDone } from '@sluice/contracts';
import type { SluiceConfig } from '@sluice/config';
import type { RoutingPolicyRegistry } from '@sluice/policies';
import { RoutingStage, routingSettingsFrom, type RoutingWakeUp } from '@sluice/stages';
import { createRouterMetrics } from './router.metrics.js';
import { RouterOnBus, type RouteCarried } from './router-on-bus.js';
import { ROUTING_REGISTRY } from './routing.registry.js';

/**
 * The routing stage on the bus: requests from flow control and worker events in (libs/stages
 * RoutingStage holds every rule: the policy's choice, in-flight accounting, the prefix index,
 * lost instances); `RouterOnBus` turns its effects into handoffs to instances, error and migrate
 * frames, the decision's span with its counterfactual candidates, and metrics.
 */
@Injectable()
export class RouterService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('router');
  private readonly stage: RoutingStage<InferenceRequest, RouteCarried>;
  private readonly timers: WakeUpTimers<RoutingWakeUp>;
  private readonly onBus: RouterOnBus;
  private readonly intake: RequestIntake;

  constructor(
    @Inject(SERVICE_CONTEXT) service: ServiceContext<SluiceConfig>,
    @Inject(ROUTING_REGISTRY) registry: RoutingPolicyRegistry,
  ) {
    const { router } = service.config;
    const metrics = createRouterMetrics(service.metrics, service.config.inferencePool, { instances: () => this.stage.instances(epochMicros()) });
    this.timers = new WakeUpTimers((kind, atUs, nowUs) => this.stage.wake(kind, atUs, nowUs), epochMicros);
    this.intake = new RequestIntake(service, 'router');
    this.onBus = new RouterOnBus(service, metrics, this.logger, router.counterfactualK, (request, carried, instanceId, message, why) =>
      this.stage.handoffRefused(request, carried, instanceId, message, epochMicros(), why),
    );
    // Without a configured seed each replica breaks ties its own way, from its instance id.
    // worker.compat: blis also gives BLIS's tie-breaks (Go math/rand) live (docs/blis-mode.md).
    const settings = { ...routingSettingsFrom(router, seedOf(service.instanceId)), compat: service.config.worker.compat };
    this.stage = new RoutingStage(settings, registry, this.onBus, this.timers);
    suspendExpiryWhileDisconnected(service.bus, this.stage);
  }

  onModuleInit(): void {
    this.stage.start(epochMicros());
  }

  onModuleDestroy(): void {
    this.stage.stop();
    this.timers.clear();
  }

  instanceCount(): number {
    return this.stage.instanceCount();
  }

  route(request: InferenceRequest): void {
    if (!this.intake.take(request)) return; // a duplicate, superseded or cancelled copy
    this.stage.route(request, epochMicros(), this.onBus.received(request, this.stage.policyName));
  }

  onCancel(cancel: CancelRequest): void {
    this.intake.cancel(cancel);
  }

  onLifecycle(event: LifecycleEvent): void {
    this.stage.onLifecycle(event);
  }

  onSnapshot(snapshot: LoadSnapshot): void {
    this.stage.onSnapshot(snapshot);
  }

  onDone(done: RequestDone): void {
    this.stage.onDone(done);
  }
}
