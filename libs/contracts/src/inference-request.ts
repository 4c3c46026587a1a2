import { z } from 'zod';
import { BlockIdSchema } from './block-hashes.js';
import { SloClassSchema } from './slo.js';
import { MicrosSchema } from './time.js';

/**
 * Per-stage durations in milliseconds, filled in as the request moves down the pipeline: each
 * stage's own time and, for the per-stage breakdown of the live path, each bus hop (`to…Ms`:
 * from the sender's handoff to the receiver's door, on one host's monotonic clock).
 */
export const StageTimingsSchema = z
  .object({
    /** At the gateway: HTTP request received → handed to admission (body, tokenization, checks). */
    gatewayInMs: z.number().nonnegative(),
    toAdmissionMs: z.number().nonnegative(),
    admissionMs: z.number().nonnegative(),
    toFlowMs: z.number().nonnegative(),
    flowQueueMs: z.number().nonnegative(),
    toRouterMs: z.number().nonnegative(),
    routingMs: z.number().nonnegative(),
    toWorkerMs: z.number().nonnegative(),
    workerQueueMs: z.number().nonnegative(),
    prefillMs: z.number().nonnegative(),
    decodeMs: z.number().nonnegative(),
    /** The worker's end frame → the gateway that owns the request. */
    toGatewayMs: z.number().nonnegative(),
    /** The current hop's send stamp (monotonic ms) and its host clock's id; removed on arrival. */
    sentAtMs: z.number().nonnegative(),
    sentOn: z.string().max(64),
  })
  .partial();
export type StageTimings = z.infer<typeof StageTimingsSchema>;

/**
 * What travels down the pipeline. Prompt text stays at the gateway: downstream stages need only
 * the token count and the block hashes (prefix caching and prefix-aware routing).
 */
export const InferenceRequestSchema = z.object({
  id: z.string().min(1),
  model: z.string().min(1),
  inputTokens: z.number().int().nonnegative(),
  /** Hierarchical hashes of the prompt's full 16-token blocks, as block ids (see block-hashes.ts). */
  blockHashes: z.array(BlockIdSchema),
  maxTokens: z.number().int().nonnegative(),
  /** Size of the HTTP request body: what flow control's `maxBytes` limits count. */
  bodyBytes: z.number().int().nonnegative().default(0),
  sloClass: SloClassSchema,
  priority: z.number().int(),
  fairnessId: z.string(),
  objective: z.string().optional(),
  /** The client's TTFT objective (`x-slo-ttft-ms`), in µs, for SLO-deadline ordering. */
  sloTtftUs: z.number().positive().brand<'µs'>().optional(),
  /** When the gateway received it: epoch µs (queue waits and SLO deadlines count from here). */
  arrivalUs: MicrosSchema,
  /** When the gateway gives up on it (504): epoch µs. */
  deadlineUs: MicrosSchema,
  /** 0 for the first try; each migration adds one. */
  attempt: z.number().int().nonnegative(),
  gatewayId: z.string().min(1),
  /** The inbox subject of the gateway that owns the request. */
  replyTo: z.string().min(1),
  timings: StageTimingsSchema.default({}),
});
export type InferenceRequest = z.infer<typeof InferenceRequestSchema>;
export type InferenceRequestInput = z.input<typeof InferenceRequestSchema>;

/**
 * The cancel event: every stage holding the request lets it go, and remembers it for a while so a
 * copy that arrives later (a frozen stage waking up, a duplicated handoff) is not served.
 * - `client_disconnected`, `timeout`, `ended`: the gateway ended the request (every attempt);
 * - `superseded`: the gateway re-submitted it; attempts up to `attempt` are stale.
 */
export const CancelRequestSchema = z.object({
  requestId: z.string().min(1),
  reason: z.enum(['client_disconnected', 'timeout', 'ended', 'superseded']),
  /** Attempts up to and including this one are cancelled; omitted: every attempt. */
  attempt: z.number().int().nonnegative().optional(),
});
export type CancelRequest = z.infer<typeof CancelRequestSchema>;

/** The reason a stage records when it lets a cancelled request go (its done event, its eviction count). */
export function cancelledAs(reason: CancelRequest['reason']): 'client_disconnected' | 'timeout' | 'cancelled' {
  return reason === 'client_disconnected' || reason === 'timeout' ? reason : 'cancelled';
}
