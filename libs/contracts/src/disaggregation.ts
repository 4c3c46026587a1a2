import { z } from 'zod';
import { MicrosSchema } from './time.js';
import { InferenceRequestSchema } from './inference-request.js';
import { IdSchema, SubjectIdSchema } from './wire-limits.js';

/**
 * What an instance serves in a disaggregated deployment (docs/behaviour.md §1, "Disaggregated
 * prefill/decode"): the wire spelling of the engine's `WORKER_ROLES` (libs/engine cannot be imported
 * here, contracts sit below it; a unit test keeps the two lists equal). Names follow vLLM's `kv_role`
 * (`kv_producer`, `kv_consumer`, `kv_both`) without the prefix.
 */
export const WIRE_WORKER_ROLES = ['both', 'prefill', 'decode'] as const;
export const WorkerRoleSchema = z.enum(WIRE_WORKER_ROLES);
export type WireWorkerRole = z.infer<typeof WorkerRoleSchema>;

/**
 * decode instance → prefill instance (a handoff, acked like every other): prefill this request's
 * prompt for me. The decode instance the router chose orchestrates the hand-off, as llm-d's
 * routing sidecar on the decode pod and Dynamo's decode worker do: it sends the prompt to the
 * prefill instance, then pulls the KV blocks it lacks once the prefill is done.
 */
export const PrefillJobSchema = z.object({
  request: InferenceRequestSchema,
  decodeInstanceId: SubjectIdSchema,
});
export type PrefillJob = z.infer<typeof PrefillJobSchema>;

/**
 * prefill instance → decode instance: the prompt is prefilled (`ok`: its blocks are cached there,
 * ready to be pulled) or it could not be (`failed`: an injected failure, an unservable prompt; the
 * decode instance then prefills it itself).
 */
export const PrefilledSchema = z.object({
  requestId: IdSchema,
  attempt: z.number().int().nonnegative(),
  prefillInstanceId: SubjectIdSchema,
  decodeInstanceId: SubjectIdSchema,
  outcome: z.enum(['ok', 'failed']),
  /** When the prefill ended on its instance: epoch µs. */
  atUs: MicrosSchema,
});
export type Prefilled = z.infer<typeof PrefilledSchema>;
