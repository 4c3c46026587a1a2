import type { Logger } from '@nestjs/common';
import { epochMicros, handoffInSpan, sendErrorFrame, sendMigrateFrame } from '@sluice/bus';
import { type ServiceContext } from '@sluice/service';
import { micros, millisFromMicros, queueGroups, subjects, type InferenceRequest, type MigrateFrame, type OutcomeReason } from '@sluice/contracts';
import type { ClusterView, RoutingDecision } from '@sluice/policies';
import { decisionTraceLine, type BusyCount, type HandBack, type HandoffFailure, type PdPlacementInfo, type RoutingEffects } from '@sluice/stages';
import type { DecisionTraceLine } from '@sluice/contracts';
import { SpanKind, SpanStatusCode, natsProcessAttributes, type Span } from '@sluice/telemetry';
import type { RouterMetrics } from './router.metrics.js';

/** What the service keeps of a request while the core routes it: its span and when it arrived. */
export interface RouteCarried {
  readonly span: Span;
  readonly receivedAt: number;
}

type Refused = (request: InferenceRequest, carried: RouteCarried, instanceId: string, message: string, why: HandoffFailure) => void;

/**
 * The routing core's effects on the bus: the decision as a span with its regret and top-k
 * counterfactual candidates (the signals each was scored on), metrics, the acknowledged handoff
 * to the chosen instance (a refusal goes back to the core), error frames, and a `migrate` frame
 * to the gateway of each request a lost instance held.
 */
export class RouterOnBus implements RoutingEffects<InferenceRequest, RouteCarried> {
  constructor(
    private readonly service: ServiceContext,
    private readonly metrics: RouterMetrics,
    private readonly logger: Logger,
    /** Candidates kept on each decision's span. */
    private readonly counterfactualK: number,
    private readonly refused: Refused,
    /** `router.decisionTrace`: where each decision's trace line goes (absent: nowhere). */
    private readonly trace?: (line: DecisionTraceLine) => void,
  ) {}

  received(request: InferenceRequest, policy: string): RouteCarried {
    const span = this.service.tracer.startSpan('router.route', {
      kind: SpanKind.CONSUMER,
      attributes: {
        ...natsProcessAttributes(subjects.routerSubmit(), queueGroups.router),
        'sluice.request.id': request.id,
        'sluice.request.attempt': request.attempt,
        'sluice.router.policy': policy,
      },
    });
    return { span, receivedAt: performance.now() };
  }

  decided(request: InferenceRequest, { span, receivedAt }: RouteCarried, policy: string, decision: RoutingDecision | null, view: ClusterView, busy?: BusyCount, pd?: PdPlacementInfo): void {
    const seconds = (performance.now() - receivedAt) / 1000;
    this.metrics.decisionSeconds.observe({ policy }, seconds);
    this.metrics.scheduled(seconds, request.model, decision?.instance.instanceId);
    span.setAttribute('sluice.router.candidates', view.instances.length);
    // The KV-event view's staleness: how long ago the caches' events were last made visible.
    if (view.kvCacheAgeUs !== undefined) span.setAttribute('sluice.router.kv_events.view_age_ms', millisFromMicros(micros(view.kvCacheAgeUs)));
    if (busy) span.setAttributes({ 'sluice.router.busy_instances': busy.busy, 'sluice.router.model_instances': busy.total });
    if (pd) {
      span.setAttributes({ 'sluice.pd.placement': pd.placement, 'sluice.pd.non_cached_tokens': pd.nonCachedTokens });
      if (pd.prefillInstanceId !== undefined) span.setAttribute('sluice.pd.prefill_instance', pd.prefillInstanceId);
    }
    if (decision) this.recordDecision(span, policy, decision, view);
    else span.setAttribute('sluice.router.decision', 'none');
    // The line the twin writes for the same decision (one builder in libs/stages).
    this.trace?.(decisionTraceLine(request, policy, decision, view, this.counterfactualK, epochMicros(), pd));
  }

  handOn(request: InferenceRequest, carried: RouteCarried, instanceId: string, prefillInstanceId?: string): void {
    const { span } = carried;
    request.timings.routingMs = performance.now() - carried.receivedAt;
    // Routed again after a refusal, a request keeps no earlier prefill pick.
    if (prefillInstanceId === undefined) delete request.prefillInstanceId;
    else request.prefillInstanceId = prefillInstanceId;
    void handoffInSpan(this.service.bus, subjects.workerSubmit(instanceId), request, span).then((result) => {
      if (result.ok) return span.end();
      span.setStatus({ code: SpanStatusCode.ERROR, message: `instance ${instanceId} did not ack` });
      this.refused(request, carried, instanceId, result.message, result.why); // the core routes it again, hands it back or ends it
    });
  }

  reject(request: InferenceRequest, { span }: RouteCarried, reason: OutcomeReason, message: string): void {
    if (reason === 'all_workers_busy') this.metrics.tasksRejected.inc({ model: request.model });
    sendErrorFrame(this.service.bus, request, 'router', reason, message);
    span.end();
  }

  handBack(request: InferenceRequest, { span }: RouteCarried, back: HandBack): void {
    span.setAttribute('sluice.router.decision', 'handed_back');
    sendMigrateFrame(this.service.bus, request, this.service.instanceId, back.reason, back.resumeAt);
    span.end();
  }

  instanceJoined(instanceId: string, workerId: string): void {
    this.logger.log(`instance ${instanceId} registered (worker ${workerId})`);
  }

  /** Each request the lost instance held gets a `migrate` frame: its gateway decides what becomes of it. */
  instanceLost(instanceId: string, held: readonly InferenceRequest[], why: 'deregistered' | 'silent'): void {
    if (why === 'silent') this.logger.warn(`instance ${instanceId} missed its heartbeats: lost`);
    for (const request of held) {
      const frame: MigrateFrame = { type: 'migrate', requestId: request.id, attempt: request.attempt, holder: instanceId, reason: 'worker_lost', resumeAt: 'router' };
      this.service.bus.publish(request.replyTo, frame);
    }
  }

  /** The choice, its regret, and the top-k candidates with their scores and signals (span events). */
  private recordDecision(span: Span, policy: string, decision: RoutingDecision, view: ClusterView): void {
    const instanceId = decision.instance.instanceId;
    this.metrics.decisions.inc({ policy, worker_instance: instanceId });
    this.metrics.regret.observe({ policy }, decision.regret);
    const [best] = decision.top(1);
    span.setAttributes({
      'sluice.router.instance': instanceId,
      'sluice.router.regret': decision.regret,
      // The chosen one's score is the best minus the regret: no need to find it in the ranking.
      ...(best ? { 'sluice.router.best_score': best.score, 'sluice.router.score': best.score - decision.regret } : {}),
    });
    // The signals each candidate was scored on: the view the decision was made from.
    decision.top(this.counterfactualK).forEach((candidate, rank) => {
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
}
