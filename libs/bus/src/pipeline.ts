import { context, trace, type Context, type Span } from '@opentelemetry/api';
import type { ErrorFrame, InferenceRequest, OutcomeReason, Stage } from '@sluice/contracts';
import type { Bus, HandoffResult } from './bus.js';

/**
 * Ends a request from any stage: an error frame to the inbox of the gateway that owns it. The
 * gateway turns it into the HTTP answer and counts the outcome.
 */
export function sendErrorFrame(
  bus: Bus,
  request: Pick<InferenceRequest, 'id' | 'replyTo' | 'attempt'>,
  stage: Stage,
  reason: OutcomeReason,
  message: string,
  ctx?: Context,
): void {
  const frame: ErrorFrame = { type: 'error', requestId: request.id, attempt: request.attempt, stage, reason, message };
  bus.publish(request.replyTo, frame, ctx);
}

/**
 * Passes a request to the next stage, as a child of `span` in the trace (`parent`, by default the
 * active context). The result says whether the next stage acked; a caller that gets a refusal
 * ends the request at once with its stage's reason, instead of letting it die at the deadline.
 */
export function handoffInSpan(bus: Bus, subject: string, request: InferenceRequest, span: Span, parent: Context = context.active()): Promise<HandoffResult> {
  return context.with(trace.setSpan(parent, span), () => bus.handoff(subject, request, request.id, request.attempt));
}
