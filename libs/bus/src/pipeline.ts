import type { Context } from '@opentelemetry/api';
import type { ErrorFrame, InferenceRequest, OutcomeReason, Stage } from '@sluice/contracts';
import type { Bus } from './bus.js';

/**
 * Ends a request from any stage: an error frame to the inbox of the gateway that owns it. The
 * gateway turns it into the HTTP answer and counts the outcome.
 */
export function sendErrorFrame(
  bus: Bus,
  request: Pick<InferenceRequest, 'id' | 'replyTo'>,
  stage: Stage,
  reason: OutcomeReason,
  message: string,
  ctx?: Context,
): void {
  const frame: ErrorFrame = { type: 'error', requestId: request.id, stage, reason, message };
  bus.publish(request.replyTo, frame, ctx);
}

/**
 * Passes a request to the next stage. When the next stage does not ack (no responders, timeout,
 * nack) the request ends here with `failReason`, so it is never silently lost.
 */
export async function handoffOrFail(
  bus: Bus,
  subject: string,
  request: InferenceRequest,
  stage: Stage,
  failReason: OutcomeReason,
): Promise<boolean> {
  const result = await bus.handoff(subject, request, request.id, request.attempt);
  if (result.ok) return true;
  sendErrorFrame(bus, request, stage, failReason, result.message);
  return false;
}
