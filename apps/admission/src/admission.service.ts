import { Inject, Injectable } from '@nestjs/common';
import { handoffOrFail, sendErrorFrame, SERVICE_CONTEXT, type ServiceContext } from '@sluice/bus';
import { subjects, type InferenceRequest } from '@sluice/contracts';
import type { SluiceConfig } from '@sluice/config';
import { createAdmissionRegistry, type AdmissionPolicy } from '@sluice/policies';
import { Counter, SpanKind, SpanStatusCode, context, trace } from '@sluice/telemetry';

/** The shell around the admission policy: decide, then pass on or reject. */
@Injectable()
export class AdmissionService {
  private readonly policy: AdmissionPolicy;
  private readonly decisions: Counter<'policy' | 'decision' | 'reason' | 'slo_class'>;

  constructor(@Inject(SERVICE_CONTEXT) private readonly service: ServiceContext<SluiceConfig>) {
    this.policy = createAdmissionRegistry().create(service.config.admission.policy, {});
    this.decisions = new Counter({
      name: 'sluice_admission_decisions_total',
      help: 'Admission decisions by policy, decision, reason and SLO class.',
      labelNames: ['policy', 'decision', 'reason', 'slo_class'],
      registers: [service.metrics],
    });
  }

  async admit(request: InferenceRequest): Promise<void> {
    const receivedAt = performance.now();
    const span = this.service.tracer.startSpan('admission.decide', {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': subjects.admissionSubmit(),
        'sluice.request.id': request.id,
        'sluice.admission.policy': this.policy.name,
        'sluice.slo_class': request.sloClass,
        'sluice.admission.cost': request.inputTokens,
      },
    });
    try {
      const decision = this.policy.decide(request, { instances: [] }, Date.now() * 1000);
      for (const [key, value] of Object.entries(decision.inputs)) span.setAttribute(`sluice.admission.${key}`, value);
      span.setAttribute('sluice.admission.decision', decision.admit ? 'admit' : 'reject');
      if (!decision.admit) {
        span.setAttribute('sluice.admission.reason', decision.reason);
        this.decisions.inc({ policy: this.policy.name, decision: 'reject', reason: decision.reason, slo_class: request.sloClass });
        sendErrorFrame(this.service.bus, request, 'admission', decision.reason, decision.message);
        return;
      }
      this.decisions.inc({ policy: this.policy.name, decision: 'admit', reason: 'admitted', slo_class: request.sloClass });
      request.timings.admissionMs = performance.now() - receivedAt;
      const passed = await context.with(trace.setSpan(context.active(), span), () =>
        handoffOrFail(this.service.bus, subjects.flowSubmit(), request, 'admission', 'flow_unavailable'),
      );
      if (!passed) span.setStatus({ code: SpanStatusCode.ERROR, message: 'flow-controller did not ack' });
    } finally {
      span.end();
    }
  }
}
