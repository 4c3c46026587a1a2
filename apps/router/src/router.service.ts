import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { handoffOrFail, sendErrorFrame, SERVICE_CONTEXT, type ServiceContext } from '@sluice/bus';
import { subjects, type InferenceRequest, type LifecycleEvent, type LoadSnapshot, type RequestDone } from '@sluice/contracts';
import type { SluiceConfig } from '@sluice/config';
import { ClusterState, createRoutingRegistry, type RoutingPolicy } from '@sluice/policies';
import { Counter, Gauge, Histogram, SpanKind, SpanStatusCode, context, trace } from '@sluice/telemetry';

/** The shell around the routing policy: owns the cluster state and in-flight accounting. */
@Injectable()
export class RouterService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('router');
  private readonly policy: RoutingPolicy;
  private readonly cluster: ClusterState;
  /** In-flight requests by id, so a lost instance's requests can be told. */
  private readonly owners = new Map<string, Pick<InferenceRequest, 'id' | 'replyTo'>>();
  private sweep: NodeJS.Timeout | undefined;
  private readonly decisions: Counter<'policy' | 'instance'>;
  private readonly decisionSeconds: Histogram<'policy'>;
  private readonly inflight: Gauge<'instance'>;

  constructor(@Inject(SERVICE_CONTEXT) private readonly service: ServiceContext<SluiceConfig>) {
    const { router } = service.config;
    this.policy = createRoutingRegistry().create(router.policy, {});
    this.cluster = new ClusterState(router.heartbeatTimeoutMs);
    this.decisions = new Counter({
      name: 'sluice_router_decisions_total',
      help: 'Routing decisions by policy and chosen instance.',
      labelNames: ['policy', 'instance'],
      registers: [service.metrics],
    });
    this.decisionSeconds = new Histogram({
      name: 'sluice_router_decision_seconds',
      help: 'Time to pick an instance, excluding the handoff.',
      labelNames: ['policy'],
      buckets: [1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 1e-2],
      registers: [service.metrics],
    });
    this.inflight = new Gauge({
      name: 'sluice_router_inflight',
      help: 'Requests dispatched by this router and not yet done, per instance.',
      labelNames: ['instance'],
      registers: [service.metrics],
      collect: () => {
        this.inflight.reset();
        for (const i of this.cluster.view(Date.now()).instances) this.inflight.set({ instance: i.instanceId }, i.inFlight);
      },
    });
  }

  onModuleInit(): void {
    const every = Math.max(50, Math.floor(this.service.config.router.heartbeatTimeoutMs / 3));
    this.sweep = setInterval(() => this.expireSilentInstances(), every);
  }

  onModuleDestroy(): void {
    clearInterval(this.sweep);
  }

  instanceCount(): number {
    return this.cluster.size();
  }

  onLifecycle(event: LifecycleEvent): void {
    if (event.type === 'register') this.logger.log(`instance ${event.instanceId} registered (worker ${event.workerId})`);
    const held = this.cluster.onLifecycle(event);
    if (event.type === 'deregister') this.failInFlight(event.instanceId, held, 'deregistered');
  }

  onSnapshot(snapshot: LoadSnapshot): void {
    this.cluster.onSnapshot(snapshot);
  }

  onDone(done: RequestDone): void {
    this.cluster.done(done.instanceId, done.requestId);
    this.owners.delete(done.requestId);
  }

  async route(request: InferenceRequest): Promise<void> {
    const receivedAt = performance.now();
    const span = this.service.tracer.startSpan('router.route', {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': subjects.routerSubmit(),
        'sluice.request.id': request.id,
        'sluice.router.policy': this.policy.name,
      },
    });
    try {
      const view = this.cluster.view(Date.now());
      span.setAttribute('sluice.router.candidates', view.instances.length);
      const decision = this.policy.route(request, view, Date.now() * 1000);
      this.decisionSeconds.observe({ policy: this.policy.name }, (performance.now() - receivedAt) / 1000);
      if (!decision) {
        span.setAttribute('sluice.router.decision', 'none');
        sendErrorFrame(this.service.bus, request, 'router', 'no_worker', `no worker instance serves model "${request.model}"`);
        return;
      }
      const instanceId = decision.instance.instanceId;
      span.setAttribute('sluice.router.instance', instanceId);
      this.decisions.inc({ policy: this.policy.name, instance: instanceId });
      // Synchronous in-flight accounting: counted before the handoff, so the next decision sees it.
      this.cluster.dispatched(instanceId, request.id);
      this.owners.set(request.id, { id: request.id, replyTo: request.replyTo });
      request.timings.routingMs = performance.now() - receivedAt;
      const passed = await context.with(trace.setSpan(context.active(), span), () =>
        handoffOrFail(this.service.bus, subjects.workerSubmit(instanceId), request, 'router', 'worker_unreachable'),
      );
      if (!passed) {
        this.cluster.done(instanceId, request.id);
        this.owners.delete(request.id);
        span.setStatus({ code: SpanStatusCode.ERROR, message: `instance ${instanceId} did not ack` });
      }
    } finally {
      span.end();
    }
  }

  private expireSilentInstances(): void {
    for (const lost of this.cluster.expire(Date.now())) {
      this.logger.warn(`instance ${lost.instanceId} missed its heartbeats: lost`);
      this.failInFlight(lost.instanceId, lost.inFlight, 'lost');
    }
  }

  /** Until migration exists, a lost instance's requests end as failed: worker_lost. */
  private failInFlight(instanceId: string, requestIds: readonly string[], how: string): void {
    for (const id of requestIds) {
      const owner = this.owners.get(id);
      if (!owner) continue;
      this.owners.delete(id);
      sendErrorFrame(this.service.bus, owner, 'router', 'worker_lost', `worker instance ${instanceId} was ${how} while serving the request`);
    }
  }
}
