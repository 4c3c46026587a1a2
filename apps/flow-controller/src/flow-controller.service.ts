import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { epochMicros, handoffOrFail, sendErrorFrame, SERVICE_CONTEXT, type ServiceContext } from '@sluice/bus';
import {
  microsFromMillis,
  millisFromMicros,
  subjects,
  type CancelRequest,
  type Micros,
  type InferenceRequest,
  type LifecycleEvent,
  type LoadSnapshot,
  type OutcomeReason,
  type RequestDone,
} from '@sluice/contracts';
import type { SluiceConfig } from '@sluice/config';
import {
  expirySweepIntervalUs,
  FlowPool,
  FlowQueues,
  flowControlFrom,
  legacyModeSheds,
  runDispatchCycle,
  type FlowControlRegistry,
  type QueuedRequest,
  type SaturationDetector,
} from '@sluice/policies';
import { SpanKind, SpanStatusCode, context, trace, type Context } from '@sluice/telemetry';
import { FLOW_CONTROL_REGISTRY } from './flow-control.registry.js';
import { createFlowControlMetrics, type FlowControlMetrics } from './flow-control.metrics.js';

/** A queued request as the shell keeps it: the request and the trace context it arrived in. */
interface Waiting {
  readonly request: InferenceRequest;
  readonly parent: Context;
}

/** How a request left the queue other than by dispatch: the outcome reason its owner is told. */
type Eviction = Extract<OutcomeReason, 'ttl_expired' | 'client_disconnected' | 'timeout' | 'shutdown'>;

const EVICTION_MESSAGES: Record<Eviction, string> = {
  ttl_expired: 'evicted from the flow-control queue: its TTL ran out before capacity freed up',
  client_disconnected: 'evicted from the flow-control queue: the client disconnected',
  timeout: 'evicted from the flow-control queue: the gateway gave up on it',
  shutdown: 'evicted from the flow-control queue: the flow controller is shutting down',
};

/**
 * The shell around the pure flow-control core (libs/policies/flow-control): requests from
 * admission are queued by band and flow, released to the router by the dispatch cycle whenever
 * the saturation detector sees capacity, and evicted on TTL, cancel or shutdown. The cycle runs
 * on every event that can free capacity or add work (arrival, snapshot, completion, lifecycle),
 * so nothing waits while there is capacity; no polling timer.
 */
@Injectable()
export class FlowControllerService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('flow-controller');
  private readonly enabled: boolean;
  private readonly queues: FlowQueues<Waiting>;
  private readonly detector: SaturationDetector;
  private readonly pool: FlowPool;
  private readonly metrics: FlowControlMetrics;
  private readonly queuedByModel = new Map<string, number>();
  private ttlTimer: NodeJS.Timeout | undefined;
  private sweep: NodeJS.Timeout | undefined;
  private stopping = false;

  constructor(
    @Inject(SERVICE_CONTEXT) private readonly service: ServiceContext<SluiceConfig>,
    @Inject(FLOW_CONTROL_REGISTRY) registry: FlowControlRegistry,
  ) {
    const config = service.config.flowController;
    const { settings, detector } = flowControlFrom(config, registry);
    this.enabled = config.enabled;
    this.queues = new FlowQueues(settings);
    this.detector = detector;
    this.pool = new FlowPool(microsFromMillis(config.heartbeatTimeoutMs));
    this.metrics = createFlowControlMetrics(service.metrics, {
      flows: () => this.queues.flowStats(),
      queuedByModel: () => this.queuedByModel,
      saturation: () => this.saturation(),
    });
  }

  onModuleInit(): void {
    const { heartbeatTimeoutMs } = this.service.config.flowController;
    this.sweep = setInterval(() => this.pool.expire(epochMicros()), millisFromMicros(expirySweepIntervalUs(microsFromMillis(heartbeatTimeoutMs))));
    const detector = this.service.config.flowController.saturationDetector.type;
    this.logger.log(this.enabled ? `queuing with ${detector}` : `flow control disabled: pass-through, sheddable requests shed while ${detector} says saturated`);
  }

  /** Shutdown: every queued request is evicted with 500 before the bus drains (BEHAVIOUR.md §3). */
  onModuleDestroy(): void {
    this.stopping = true;
    clearInterval(this.sweep);
    clearTimeout(this.ttlTimer);
    const drained = this.queues.drain();
    if (drained.length > 0) this.logger.warn(`shutting down: evicting ${drained.length} queued requests`);
    for (const item of drained) this.evicted(item, 'shutdown');
  }

  submit(request: InferenceRequest): void {
    const started = performance.now();
    const flow = { fairness_id: request.fairnessId, priority: String(request.priority) };
    const span = this.service.tracer.startSpan('flow_control.enqueue', {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': subjects.flowSubmit(),
        'sluice.request.id': request.id,
        'sluice.flow.fairness_id': request.fairnessId,
        'sluice.flow.priority': request.priority,
        'sluice.flow.mode': this.enabled ? 'queue' : 'legacy',
      },
    });
    const finish = (outcome: string) => {
      span.setAttribute('sluice.flow.outcome', outcome);
      span.end();
      this.metrics.enqueueDuration.observe({ ...flow, outcome }, (performance.now() - started) / 1000);
    };
    const parent = context.active();

    if (this.stopping) {
      this.reject(request, 'shutdown', EVICTION_MESSAGES.shutdown, parent);
      return finish('shutdown');
    }
    if (!this.enabled) {
      // Legacy mode: no queue; only sheddable requests are refused, and only while saturated.
      const saturation = this.saturation();
      span.setAttribute('sluice.flow.saturation', saturation);
      if (legacyModeSheds(request.priority, saturation)) {
        this.reject(request, 'pool_saturated', `the pool is saturated (${saturation.toFixed(2)}) and the request is sheddable (priority ${request.priority})`, parent);
        return finish('pool_saturated');
      }
      request.timings.flowQueueMs = 0;
      this.release(request, parent, saturation, epochMicros());
      return finish('passed_through');
    }

    const now = epochMicros();
    const outcome = this.queues.enqueue(
      {
        id: request.id,
        flow: { fairnessId: request.fairnessId, priority: request.priority },
        byteSize: request.bodyBytes,
        tokens: request.inputTokens + request.maxTokens,
        arrivalUs: request.arrivalUs,
        sloTtftUs: request.sloTtftUs,
        payload: { request, parent },
      },
      now,
    );
    if (!outcome.ok) {
      span.setAttributes({ 'sluice.flow.limit.scope': outcome.exceeded.scope, 'sluice.flow.limit.resource': outcome.exceeded.resource });
      this.reject(request, 'flow_capacity', outcome.message, parent);
      return finish('flow_capacity');
    }
    this.queuedByModel.set(request.model, (this.queuedByModel.get(request.model) ?? 0) + 1);
    span.setAttribute('sluice.flow.queue_size', this.queues.size);
    finish('enqueued');
    this.dispatch();
    this.armTtlTimer();
  }

  onLifecycle(event: LifecycleEvent): void {
    this.pool.onLifecycle(event);
    this.dispatch();
  }

  onSnapshot(snapshot: LoadSnapshot): void {
    this.pool.onSnapshot(snapshot);
    this.dispatch();
  }

  onDone(done: RequestDone): void {
    if (this.pool.done(done.requestId)) this.dispatch();
  }

  /** The gateway let the request go (client disconnect, its deadline): if still queued, it never reaches a worker. */
  onCancel(cancel: CancelRequest): void {
    const item = this.queues.remove(cancel.requestId);
    if (item) this.evicted(item, cancel.reason);
  }

  /** The detector's reading of the pool now. */
  saturation(): number {
    return this.detector.saturation(this.pool.signals(epochMicros()));
  }

  private dispatch(): void {
    if (this.stopping || this.queues.size === 0) return;
    const started = performance.now();
    const now = epochMicros();
    const signals = this.pool.signals(now);
    runDispatchCycle(
      this.queues,
      () => this.detector.saturation(signals),
      (item, saturation) => {
        this.left(item, 'dispatched', now);
        item.payload.request.timings.flowQueueMs = millisFromMicros(now) - millisFromMicros(item.enqueuedAtUs);
        this.release(item.payload.request, item.payload.parent, saturation, now, item);
      },
    );
    this.metrics.dispatchCycle.observe((performance.now() - started) / 1000);
  }

  /**
   * Hands the request to the router, counted in flight first so the next saturation reading sees
   * it. The handoff is not awaited: the cycle goes on, and a refused handoff ends the request.
   */
  private release(request: InferenceRequest, parent: Context, saturation: number, now: Micros, queued?: QueuedRequest<Waiting>): void {
    this.pool.dispatched(request.id, request.inputTokens + request.maxTokens, now, request.deadlineUs);
    const span = this.service.tracer.startSpan(
      'flow_control.dispatch',
      {
        kind: SpanKind.INTERNAL,
        // The span covers the time in the queue, so a trace shows the wait where it happened.
        startTime: millisFromMicros(queued ? queued.enqueuedAtUs : now),
        attributes: {
          'sluice.request.id': request.id,
          'sluice.flow.fairness_id': request.fairnessId,
          'sluice.flow.priority': request.priority,
          'sluice.flow.band': request.priority,
          'sluice.flow.queue_time_ms': request.timings.flowQueueMs ?? 0,
          'sluice.flow.saturation': saturation,
          'sluice.flow.outcome': 'dispatched',
        },
      },
      parent,
    );
    void context
      .with(trace.setSpan(parent, span), () => handoffOrFail(this.service.bus, subjects.routerSubmit(), request, 'flow', 'router_unavailable'))
      .then((passed) => {
        this.metrics.handoffs.inc({ outcome: passed ? 'dispatched' : 'router_unavailable' });
        if (!passed) {
          this.pool.done(request.id);
          span.setStatus({ code: SpanStatusCode.ERROR, message: 'router did not ack' });
        }
        span.end();
      });
  }

  /** A queued request leaves other than by dispatch: its owner gets the reason, and a span records the wait. */
  private evicted(item: QueuedRequest<Waiting>, reason: Eviction): void {
    const now = epochMicros();
    this.left(item, reason, now);
    const { request, parent } = item.payload;
    const span = this.service.tracer.startSpan(
      'flow_control.dispatch',
      {
        kind: SpanKind.INTERNAL,
        startTime: millisFromMicros(item.enqueuedAtUs),
        attributes: {
          'sluice.request.id': request.id,
          'sluice.flow.fairness_id': request.fairnessId,
          'sluice.flow.priority': request.priority,
          'sluice.flow.band': request.priority,
          'sluice.flow.queue_time_ms': millisFromMicros(now) - millisFromMicros(item.enqueuedAtUs),
          'sluice.flow.outcome': reason,
        },
      },
      parent,
    );
    span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
    span.end(millisFromMicros(now));
    this.reject(request, reason, EVICTION_MESSAGES[reason], trace.setSpan(parent, span));
  }

  /** Books a request out of the queue: its queue time by outcome, and the per-model count. */
  private left(item: QueuedRequest<Waiting>, outcome: string, now: Micros): void {
    const { request } = item.payload;
    this.metrics.queueDuration.observe({ fairness_id: request.fairnessId, priority: String(request.priority), outcome }, (now - item.enqueuedAtUs) / 1e6);
    const left = (this.queuedByModel.get(request.model) ?? 1) - 1;
    if (left > 0) this.queuedByModel.set(request.model, left);
    else this.queuedByModel.delete(request.model);
  }

  private reject(request: InferenceRequest, reason: OutcomeReason, message: string, ctx: Context): void {
    sendErrorFrame(this.service.bus, request, 'flow', reason, message, ctx);
  }

  /** One timer, for the earliest TTL deadline among the queued requests. */
  private armTtlTimer(): void {
    clearTimeout(this.ttlTimer);
    const next = this.queues.nextExpiryUs();
    if (next === undefined || this.stopping) return;
    this.ttlTimer = setTimeout(() => {
      for (const item of this.queues.expire(epochMicros())) this.evicted(item, 'ttl_expired');
      this.armTtlTimer();
    }, Math.max(0, millisFromMicros(next) - millisFromMicros(epochMicros())));
  }
}
