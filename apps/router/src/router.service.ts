import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { epochMicros, handoffOrFail, sendErrorFrame, SERVICE_CONTEXT, type ServiceContext } from '@sluice/bus';
import {
  microsFromMillis,
  millisFromMicros,
  subjects,
  type InferenceRequest,
  type LifecycleEvent,
  type LoadSnapshot,
  type MigrateFrame,
  type RequestDone,
} from '@sluice/contracts';
import type { SluiceConfig } from '@sluice/config';
import {
  expirySweepIntervalUs,
  ClusterState,
  PrefixIndex,
  type ClusterView,
  type RoutingDecision,
  type RoutingPolicy,
  type RoutingPolicyRegistry,
} from '@sluice/policies';
import { seedOf, seededRandom } from '@sluice/collections';
import { SpanKind, SpanStatusCode, context, trace, type Span } from '@sluice/telemetry';
import { createRouterMetrics, type RouterMetrics } from './router.metrics.js';
import { ROUTING_REGISTRY } from './routing.registry.js';

/**
 * The shell around the routing policy. It owns what BEHAVIOUR.md §4 makes synchronous: in-flight
 * accounting (+1 at dispatch, −1 when the instance reports the request done) and the router-side
 * prefix index (the request's blocks recorded on the chosen instance right after each decision).
 * Instance-reported signals reach policies every `snapshotRefreshIntervalMs` (0: at once).
 */
@Injectable()
export class RouterService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('router');
  private readonly policy: RoutingPolicy;
  private readonly cluster: ClusterState;
  private readonly prefix = new PrefixIndex();
  /** In-flight requests by id, so a lost instance's requests can be told. */
  private readonly owners = new Map<string, Pick<InferenceRequest, 'id' | 'replyTo'>>();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly metrics: RouterMetrics;

  constructor(
    @Inject(SERVICE_CONTEXT) private readonly service: ServiceContext<SluiceConfig>,
    @Inject(ROUTING_REGISTRY) registry: RoutingPolicyRegistry,
  ) {
    const { router } = service.config;
    const random = seededRandom(router.seed ?? seedOf(service.instanceId));
    this.policy = registry.create(router.policy, router.policies[router.policy], { random });
    this.cluster = new ClusterState(microsFromMillis(router.heartbeatTimeoutMs), { snapshots: router.snapshotRefreshIntervalMs > 0 ? 'on-refresh' : 'immediate' });
    this.metrics = createRouterMetrics(service.metrics, () => this.cluster.view(epochMicros()).instances);
  }

  onModuleInit(): void {
    const { heartbeatTimeoutMs, snapshotRefreshIntervalMs } = this.service.config.router;
    this.timers.push(setInterval(() => this.expireSilentInstances(), millisFromMicros(expirySweepIntervalUs(microsFromMillis(heartbeatTimeoutMs)))));
    if (snapshotRefreshIntervalMs > 0) this.timers.push(setInterval(() => this.cluster.refresh(), snapshotRefreshIntervalMs));
  }

  onModuleDestroy(): void {
    for (const timer of this.timers) clearInterval(timer);
  }

  instanceCount(): number {
    return this.cluster.size();
  }

  onLifecycle(event: LifecycleEvent): void {
    if (event.type === 'register') this.logger.log(`instance ${event.instanceId} registered (worker ${event.workerId})`);
    const held = this.cluster.onLifecycle(event);
    if (event.type === 'deregister') this.instanceGone(event.instanceId, held);
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
      const now = epochMicros();
      const view = this.cluster.view(now, this.prefix);
      span.setAttribute('sluice.router.candidates', view.instances.length);
      const decision = this.policy.route(request, view, now);
      this.metrics.decisionSeconds.observe({ policy: this.policy.name }, (performance.now() - receivedAt) / 1000);
      if (!decision) {
        span.setAttribute('sluice.router.decision', 'none');
        sendErrorFrame(this.service.bus, request, 'router', 'no_worker', `no worker instance serves model "${request.model}"`);
        return;
      }
      const instanceId = decision.instance.instanceId;
      this.recordDecision(span, decision, view);
      // Synchronous signals, updated before the handoff so the next decision sees them.
      this.cluster.dispatched(instanceId, request.id);
      this.prefix.record(instanceId, request.blockHashes);
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

  /** The choice, its regret, and the top-k candidates with their scores and signals (span events). */
  private recordDecision(span: Span, decision: RoutingDecision, view: ClusterView): void {
    const instanceId = decision.instance.instanceId;
    this.metrics.decisions.inc({ policy: this.policy.name, worker_instance: instanceId });
    this.metrics.regret.observe({ policy: this.policy.name }, decision.regret);
    const [best] = decision.top(1);
    span.setAttributes({
      'sluice.router.instance': instanceId,
      'sluice.router.regret': decision.regret,
      // The chosen one's score is the best minus the regret: no need to find it in the ranking.
      ...(best ? { 'sluice.router.best_score': best.score, 'sluice.router.score': best.score - decision.regret } : {}),
    });
    // The signals each candidate was scored on: the view the decision was made from.
    decision.top(this.service.config.router.counterfactualK).forEach((candidate, rank) => {
      const signals = view.instances.find((i) => i.instanceId === candidate.instanceId);
      span.addEvent('candidate', {
        'sluice.router.candidate.rank': rank,
        'sluice.router.candidate.instance': candidate.instanceId,
        'sluice.router.candidate.score': candidate.score,
        'sluice.router.candidate.effective_load': candidate.effectiveLoad,
        'sluice.router.candidate.chosen': candidate.instanceId === instanceId,
        ...(signals
          ? {
              'sluice.router.candidate.queue_depth': signals.queueDepth,
              'sluice.router.candidate.batch_size': signals.batchSize,
              'sluice.router.candidate.in_flight': signals.inFlight,
              'sluice.router.candidate.kv_utilization': signals.kvUtilization,
              'sluice.router.candidate.snapshot_age_ms': Number.isFinite(signals.snapshotAgeUs) ? millisFromMicros(signals.snapshotAgeUs) : -1,
            }
          : {}),
        ...Object.fromEntries(Object.entries(candidate.scores ?? {}).map(([scorer, score]) => [`sluice.router.candidate.scores.${scorer}`, score])),
      });
    });
  }

  private expireSilentInstances(): void {
    for (const lost of this.cluster.expire(epochMicros())) {
      this.logger.warn(`instance ${lost.instanceId} missed its heartbeats: lost`);
      this.instanceGone(lost.instanceId, lost.inFlight);
    }
  }

  /**
   * An instance left routing (deregistered or lost): its prefix beliefs go, and each request it
   * held gets a `migrate` frame on its inbox; the gateway decides what to do with it.
   */
  private instanceGone(instanceId: string, requestIds: readonly string[]): void {
    this.prefix.dropInstance(instanceId);
    for (const id of requestIds) {
      const owner = this.owners.get(id);
      if (!owner) continue;
      this.owners.delete(id);
      const frame: MigrateFrame = { type: 'migrate', requestId: id, instanceId };
      this.service.bus.publish(owner.replyTo, frame);
    }
  }
}
