import type { InferenceRequest } from '@sluice/contracts';
import { UNMARKED, type HeldRequest } from '@sluice/stages';
import type { Context, Span } from '@sluice/telemetry';

/**
 * A request on one of this worker's instances: the engine's fields and the worker stage's marks
 * (which the core owns), the request as it came off the bus, and its trace.
 */
export interface LiveHeld extends HeldRequest {
  readonly request: InferenceRequest;
  /** The trace context the router sent it in. */
  readonly parent: Context;
  /** The worker's span for it, from its arrival to its end. */
  span: Span | undefined;
  /** Times it was preempted on its instance (`vllm:request_num_preemptions`). */
  preemptions: number;
}

export function liveHeld(request: InferenceRequest, parent: Context): LiveHeld {
  return {
    id: request.id,
    inputTokens: request.inputTokens,
    maxTokens: request.maxTokens,
    blockHashes: request.blockHashes,
    priority: request.priority,
    attempt: request.attempt,
    // Disaggregated: the router's prefill pick (its prompt is prefilled there first).
    prefillInstanceId: request.prefillInstanceId,
    prefillFor: undefined,
    request,
    parent,
    span: undefined,
    preemptions: 0,
    // The stage sets every mark when its instance accepts the request.
    ...UNMARKED,
  };
}
