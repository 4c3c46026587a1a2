import { epochMicros, handoffInSpan, sendErrorFrame } from '@sluice/bus';
import { type RequestIntake, type ServiceContext } from '@sluice/service';
import { micros, millisFromMicros, queueGroups, secondsFromMicros, subjects, type FlowQueueBand, type FlowQueueReport, type InferenceRequest, type Micros, type OutcomeReason } from '@sluice/contracts';
import type { DispatchCycleResult, FlowKey } from '@sluice/policies';
import { worthHandingBack, type FlowArrival, type FlowControlEffects, type FlowEviction, type FlowRelease, type HandBack, type HandoffFailure } from '@sluice/stages';
import { SpanKind, SpanStatusCode, context, natsProcessAttributes, trace, type Context, type Span } from '@sluice/telemetry';
import { type FlowControlMetrics, type QueueExit } from './flow-control.metrics.js';

/** What the service keeps of a request in flow control: the arrival span and the trace it came in. */
export interface FlowCarried {
  readonly span: Span;
  readonly parent: Context;
  readonly receivedAt: number;
}

type Refused = (request: InferenceRequest, carried: FlowCarried, message: string, why: HandoffFailure) => void;

/**
 * The flow-control core's effects on the bus: the enqueue span and metric on arrival, the
 * dispatch span (covering the wait, so a trace shows it where it happened), the acknowledged
 * handoff to the router (a refusal goes back to the core), error frames, and the Endpoint
 * Picker's queue metrics.
 */
export class FlowControlOnBus implements FlowControlEffects<InferenceRequest, FlowCarried> {
  private cycleStartedAt = 0;

  constructor(
    private readonly service: ServiceContext,
    private readonly metrics: FlowControlMetrics,
    /** Queue mode (else legacy pass-through, where no request waits and no queue time is observed). */
    private readonly queueing: boolean,
    private readonly intake: RequestIntake,
    private readonly refused: Refused,
  ) {}

  received(request: InferenceRequest, mode: 'queue' | 'legacy'): FlowCarried {
    const span = this.service.tracer.startSpan('flow_control.enqueue', {
      kind: SpanKind.CONSUMER,
      attributes: {
        ...natsProcessAttributes(subjects.flowSubmit(), queueGroups.flowController),
        'sluice.request.id': request.id,
        'sluice.request.attempt': request.attempt,
        'sluice.flow.fairness_id': request.fairnessId,
        'sluice.flow.priority': request.priority,
        'sluice.flow.mode': mode,
      },
    });
    return { span, parent: context.active(), receivedAt: performance.now() };
  }

  arrived(request: InferenceRequest, { span, receivedAt }: FlowCarried, arrival: FlowArrival): void {
    switch (arrival.outcome) {
      case 'enqueued':
        span.setAttribute('sluice.flow.queue_size', arrival.queueSize);
        break;
      case 'passed_through':
      case 'pool_saturated':
        span.setAttribute('sluice.flow.saturation', arrival.saturation);
        break;
      case 'flow_capacity':
        span.setAttributes({ 'sluice.flow.limit.scope': arrival.exceeded.scope, 'sluice.flow.limit.resource': arrival.exceeded.resource });
        break;
      case 'too_many_flows':
        span.setAttribute('sluice.flow.max_flows', arrival.maxFlows);
        break;
      case 'shutdown':
        break;
    }
    span.setAttribute('sluice.flow.outcome', arrival.outcome);
    span.end();
    this.metrics.arrived(request, arrival.outcome, (performance.now() - receivedAt) / 1000);
  }

  handOn(request: InferenceRequest, carried: FlowCarried, release: FlowRelease): void {
    const now = epochMicros();
    if (this.queueing) this.left(request, 'dispatched', release.enqueuedAtUs, now);
    const span = this.dispatchSpan(request, carried.parent, release.enqueuedAtUs, {
      'sluice.flow.queue_time_ms': request.timings.flowQueueMs ?? 0,
      'sluice.flow.saturation': release.saturation,
      'sluice.flow.outcome': 'dispatched',
    });
    void handoffInSpan(this.service.bus, subjects.routerSubmit(), request, span, carried.parent).then((result) => {
      // A refusal worth a hand-back is counted there (handed_back), once.
      if (result.ok || !worthHandingBack(result.why)) this.metrics.handoffs.inc({ outcome: result.ok ? 'dispatched' : 'router_unavailable' });
      if (!result.ok) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'router did not ack' });
        this.refused(request, carried, result.message, result.why);
      }
      span.end();
    });
  }

  reject(request: InferenceRequest, carried: FlowCarried, reason: OutcomeReason, message: string): void {
    sendErrorFrame(this.service.bus, request, 'flow', reason, message, carried.parent);
  }

  /** A queued request left other than by dispatch: its gateway gets the reason, a span records the wait. */
  evict(request: InferenceRequest, carried: FlowCarried, reason: FlowEviction, message: string, enqueuedAtUs: Micros): void {
    const now = epochMicros();
    this.left(request, reason, enqueuedAtUs, now);
    const span = this.dispatchSpan(request, carried.parent, enqueuedAtUs, {
      'sluice.flow.queue_time_ms': millisFromMicros(micros(now - enqueuedAtUs)),
      'sluice.flow.outcome': reason,
    });
    span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
    span.end(millisFromMicros(now));
    sendErrorFrame(this.service.bus, request, 'flow', reason, message, trace.setSpan(carried.parent, span));
  }

  /** Given back to its gateway (the router did not answer; shutdown): it re-submits it. */
  handBack(request: InferenceRequest, carried: FlowCarried, back: HandBack, enqueuedAtUs: Micros | undefined): void {
    const now = epochMicros();
    if (enqueuedAtUs !== undefined) {
      this.left(request, 'handed_back', enqueuedAtUs, now);
      const span = this.dispatchSpan(request, carried.parent, enqueuedAtUs, { 'sluice.flow.outcome': 'handed_back', 'sluice.migration.reason': back.reason });
      span.end(millisFromMicros(now));
    }
    this.metrics.handoffs.inc({ outcome: 'handed_back' });
    this.intake.handBack(request, back);
  }

  /** Every admission process hears what this controller holds queued (a plain event: the next one replaces a lost one). */
  queueReported(atUs: Micros, bands: readonly FlowQueueBand[]): void {
    const report: FlowQueueReport = { processId: this.service.instanceId, atUs, bands: [...bands] };
    this.service.bus.publish(subjects.flowQueue(this.service.instanceId), report);
  }

  cycleStarted(): void {
    this.cycleStartedAt = performance.now();
  }

  cycleFinished(_result: DispatchCycleResult): void {
    this.metrics.dispatchCycle((performance.now() - this.cycleStartedAt) / 1000);
  }

  /** Forgotten flows take their per-flow series with them, so tenants that come and go leave nothing in /metrics. */
  flowsForgotten(flows: readonly FlowKey[]): void {
    for (const flow of flows) this.metrics.forgetFlow(flow);
  }

  /** Its time in the queue, by how it left. */
  private left(request: InferenceRequest, outcome: QueueExit, enqueuedAtUs: Micros, nowUs: Micros): void {
    this.metrics.left(request, outcome, secondsFromMicros(micros(nowUs - enqueuedAtUs)));
  }

  /** The span of a request's time in the queue, from when it was enqueued. */
  private dispatchSpan(request: InferenceRequest, parent: Context, enqueuedAtUs: Micros, attributes: Record<string, string | number>): Span {
    return this.service.tracer.startSpan(
      'flow_control.dispatch',
      {
        kind: SpanKind.INTERNAL,
        startTime: millisFromMicros(enqueuedAtUs),
        attributes: {
          'sluice.request.id': request.id,
          'sluice.request.attempt': request.attempt,
          'sluice.flow.fairness_id': request.fairnessId,
          'sluice.flow.priority': request.priority,
          'sluice.flow.band': request.priority,
          ...attributes,
        },
      },
      parent,
    );
  }
}
