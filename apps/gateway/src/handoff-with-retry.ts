import { stampSent, type Bus, type HandoffResult } from '@sluice/bus';
import type { InferenceRequest } from '@sluice/contracts';
import { HANDOFF_RETRY, nextHandoffPauseMs } from '@sluice/stages';

/**
 * A handoff that tries again while the next stage is absent or silent (no responder: a restart in
 * progress; no ack in time: a freeze), with exponential backoff, until `windowMs` has passed or
 * `stillWanted` says the request has moved on (ended, or a newer attempt). Trying the same attempt
 * twice is harmless: stages serve each attempt once. A nack is final at once; a connection that
 * is down (NATS restarting) is tried again like a silent stage.
 */
export async function handoffWithRetry(
  bus: Bus,
  subject: string,
  request: InferenceRequest,
  windowMs: number,
  stillWanted: () => boolean,
): Promise<HandoffResult | 'abandoned'> {
  const giveUpAt = Date.now() + windowMs;
  let pauseMs: number = HANDOFF_RETRY.firstPauseMs;
  for (;;) {
    // Checked before every try, the first included: a re-submission that waited out a pause may
    // find its request ended meanwhile.
    if (!stillWanted()) return 'abandoned';
    stampSent(request.timings);
    const result = await bus.handoff(subject, request, request.id, request.attempt);
    if (result.ok || result.why === 'nack') return result;
    if (Date.now() + pauseMs > giveUpAt) return result;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    pauseMs = nextHandoffPauseMs(pauseMs);
  }
}
