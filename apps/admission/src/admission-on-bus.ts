import type { Logger } from '@nestjs/common';
import { handoffInSpan, sendErrorFrame } from '@sluice/bus';
import { type RequestIntake, type ServiceContext } from '@sluice/service';
import { queueGroups, subjects, type BusyThresholdsAnnouncement, type InferenceRequest, type OutcomeReason } from '@sluice/contracts';
import type { ChainDecision, DecisionInputs } from '@sluice/policies';
import type { AdmissionEffects, HandBack, HandoffFailure } from '@sluice/stages';
import { SpanKind, SpanStatusCode, natsProcessAttributes, type Span } from '@sluice/telemetry';
import type { AdmissionMetrics } from './admission.metrics.js';

/** What the service keeps of a request while the core decides: its span and when it arrived. */
export interface AdmissionCarried {
  readonly span: Span;
  readonly receivedAt: number;
}

type Refused = (request: InferenceRequest, carried: AdmissionCarried, message: string, why: HandoffFailure) => void;

/**
 * The admission core's effects on the bus: the decision as span attributes and metrics, the
 * handoff to flow control (acknowledged; a refusal goes back to the core), error frames.
 */
export class AdmissionOnBus implements AdmissionEffects<InferenceRequest, AdmissionCarried> {
  constructor(
    private readonly service: ServiceContext,
    private readonly metrics: AdmissionMetrics,
    private readonly logger: Logger,
    private readonly intake: RequestIntake,
    private readonly refused: Refused,
  ) {}

  /** A request came in: its consumer span, in the sender's trace. */
  received(request: InferenceRequest): AdmissionCarried {
    const span = this.service.tracer.startSpan('admission.decide', {
      kind: SpanKind.CONSUMER,
      attributes: {
        ...natsProcessAttributes(subjects.admissionSubmit(), queueGroups.admission),
        'sluice.request.id': request.id,
        'sluice.request.attempt': request.attempt,
        'sluice.slo_class': request.sloClass,
        'sluice.admission.cost': request.inputTokens,
      },
    });
    return { span, receivedAt: performance.now() };
  }

  /**
   * The decision on the span: the check that decided and its inputs as attributes (a chain of one
   * reads as the policy alone always did); with several checks, the chain and one `admission.check`
   * event per check that ran, with its decision and inputs.
   */
  decided(request: InferenceRequest, { span }: AdmissionCarried, policy: string, decision: ChainDecision): void {
    span.setAttribute('sluice.admission.policy', policy);
    span.setAttributes(inputAttributes(decision.inputs));
    if (decision.chain.length > 1) {
      span.setAttribute('sluice.admission.chain', decision.chain.join(','));
      for (const { policy: check, decision: own } of decision.checks) {
        span.addEvent('admission.check', {
          'sluice.admission.check': check,
          'sluice.admission.decision': own.admit ? 'admit' : 'reject',
          'sluice.admission.reason': own.admit ? 'admitted' : own.reason,
          ...inputAttributes(own.inputs),
        });
      }
    }
    // The bucket's level from its own check, wherever it sits in the chain (a later check may have decided).
    for (const { decision: own } of decision.checks) {
      const level = own.inputs.bucket_level_after;
      if (typeof level === 'number') this.metrics.bucketLevel.set(level);
    }
    const reason = decision.admit ? 'admitted' : decision.reason;
    span.setAttributes({ 'sluice.admission.decision': decision.admit ? 'admit' : 'reject', 'sluice.admission.reason': reason });
    this.metrics.decision(policy, decision.admit ? 'admit' : 'reject', reason, request.sloClass, request.model);
    if (!decision.admit && decision.reason === 'all_workers_busy') this.metrics.busyRejection(request.model);
  }

  handOn(request: InferenceRequest, carried: AdmissionCarried): void {
    const { span } = carried;
    request.timings.admissionMs = performance.now() - carried.receivedAt;
    void handoffInSpan(this.service.bus, subjects.flowSubmit(), request, span).then((result) => {
      if (result.ok) return span.end();
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'flow-controller did not ack' });
      this.refused(request, carried, result.message, result.why); // the core ends it or hands it back, which ends the span
    });
  }

  reject(request: InferenceRequest, { span }: AdmissionCarried, reason: OutcomeReason, message: string, retryAfterMs?: number): void {
    sendErrorFrame(this.service.bus, request, 'admission', reason, message, undefined, retryAfterMs);
    span.end();
  }

  handBack(request: InferenceRequest, { span }: AdmissionCarried, back: HandBack): void {
    span.addEvent('handed_back', { 'sluice.migration.reason': back.reason, 'sluice.migration.resume_at': back.resumeAt });
    this.intake.handBack(request, back);
    span.end();
  }

  /** To every router and admission replica (an event: each hears it). */
  announceBusyThresholds(announcement: BusyThresholdsAnnouncement): void {
    this.service.bus.publish(subjects.busyThresholds(), announcement);
  }

  instancesLost(instanceIds: readonly string[]): void {
    for (const id of instanceIds) this.logger.warn(`instance ${id} missed its heartbeats: left the cluster view`);
  }
}

/** A decision's inputs as `sluice.admission.<input>` attributes. */
function inputAttributes(inputs: DecisionInputs): Record<string, string | number | boolean> {
  const attributes: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(inputs)) attributes[`sluice.admission.${key}`] = value;
  return attributes;
}
