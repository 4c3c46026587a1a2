import { z } from 'zod';
import { MicrosSchema } from './time.js';
import { IdSchema, MAX_KV_EVENT_BLOCKS, SubjectIdSchema } from './wire-limits.js';

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
 * One request's KV hand-off from its prefill instance to its decode instance. `started` when the
 * prefill finished and the blocks begin to move, `ended` when the decode instance holds them (it
 * then enqueues the request), `failed` when either side was lost mid-transfer (the request migrates
 * like any other held by a lost instance).
 */
export const KvTransferEventSchema = z.object({
  type: z.enum(['started', 'ended', 'failed']),
  requestId: IdSchema,
  prefillInstanceId: SubjectIdSchema,
  decodeInstanceId: SubjectIdSchema,
  /** Blocks the decode instance lacked: only those move. */
  blocks: z.number().int().nonnegative().max(MAX_KV_EVENT_BLOCKS),
  bytes: z.number().int().nonnegative(),
  /** When the sender observed it: epoch µs. */
  atUs: MicrosSchema,
});
export type KvTransferEvent = z.infer<typeof KvTransferEventSchema>;
