import { context, trace, type Context, type Span } from '@opentelemetry/api';
import type { ErrorFrame, HeldFrame, InferenceRequest, MigrateFrame, MigrationReason, OutcomeReason, ResumeStage, Stage } from '@sluice/contracts';
import type { Bus, HandoffResult } from './bus.js';
import { stampSent } from './hop-clock.js';

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
  /** The deciding rule's estimate of when a retry would pass (the gateway's `retry-after`). */
  retryAfterMs?: number,
): void {
  const frame: ErrorFrame = { type: 'error', requestId: request.id, attempt: request.attempt, stage, reason, message, ...(retryAfterMs !== undefined && { retryAfterMs }) };
  bus.publish(request.replyTo, frame, ctx);
}

/** Tells the gateway that owns the request who holds it now (it re-submits it if that holder is lost). */
export function sendHeldFrame(bus: Bus, request: Pick<InferenceRequest, 'id' | 'replyTo' | 'attempt'>, stage: Stage, holder: string): void {
  const frame: HeldFrame = { type: 'held', requestId: request.id, attempt: request.attempt, stage, holder };
  bus.publish(request.replyTo, frame);
}

/** Gives the request back to the gateway that owns it, which re-submits it at `resumeAt` as a new attempt. */
export function sendMigrateFrame(
  bus: Bus,
  request: Pick<InferenceRequest, 'id' | 'replyTo' | 'attempt'>,
  holder: string,
  reason: MigrationReason,
  resumeAt: ResumeStage,
  ctx?: Context,
): void {
  const frame: MigrateFrame = { type: 'migrate', requestId: request.id, attempt: request.attempt, holder, reason, resumeAt };
  bus.publish(request.replyTo, frame, ctx);
}

/**
 * Passes a request to the next stage, as a child of `span` in the trace (`parent`, by default the
 * active context). The result says whether the next stage acked; a caller that gets a refusal
 * ends the request at once with its stage's reason, instead of letting it die at the deadline.
 */
export function handoffInSpan(bus: Bus, subject: string, request: InferenceRequest, span: Span, parent: Context = context.active()): Promise<HandoffResult> {
  stampSent(request.timings);
  return context.with(trace.setSpan(parent, span), () => bus.handoff(subject, request, request.id, request.attempt));
}
