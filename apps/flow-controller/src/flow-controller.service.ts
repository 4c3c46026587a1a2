import { Inject, Injectable } from '@nestjs/common';
import { handoffOrFail, SERVICE_CONTEXT, type ServiceContext } from '@sluice/bus';
import { subjects, type InferenceRequest } from '@sluice/contracts';
import type { SluiceConfig } from '@sluice/config';
import { Counter, SpanKind, SpanStatusCode, context, trace } from '@sluice/telemetry';

/**
 * Pass-through for now: every request is dispatched to the router as it arrives. Priority bands,
 * fairness, ordering and saturation-gated dispatch replace this.
 */
@Injectable()
export class FlowControllerService {
  private readonly dispatched: Counter<'outcome'>;

  constructor(@Inject(SERVICE_CONTEXT) private readonly service: ServiceContext<SluiceConfig>) {
    this.dispatched = new Counter({
      name: 'sluice_flow_dispatched_total',
      help: 'Requests the flow controller passed to the router, by handoff outcome.',
      labelNames: ['outcome'],
      registers: [service.metrics],
    });
  }

  async submit(request: InferenceRequest): Promise<void> {
    const receivedAt = performance.now();
    const span = this.service.tracer.startSpan('flow_control.dispatch', {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': subjects.flowSubmit(),
        'sluice.request.id': request.id,
        'sluice.flow.fairness_id': request.fairnessId,
        'sluice.flow.priority': request.priority,
        'sluice.flow.mode': 'pass-through',
      },
    });
    try {
      request.timings.flowQueueMs = performance.now() - receivedAt;
      const passed = await context.with(trace.setSpan(context.active(), span), () =>
        handoffOrFail(this.service.bus, subjects.routerSubmit(), request, 'flow', 'router_unavailable'),
      );
      this.dispatched.inc({ outcome: passed ? 'dispatched' : 'router_unavailable' });
      if (!passed) span.setStatus({ code: SpanStatusCode.ERROR, message: 'router did not ack' });
    } finally {
      span.end();
    }
  }
}
