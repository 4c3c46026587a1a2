import { z } from 'zod';
import { BLOCK_SIZE, BlockIdSchema } from './block-hashes.js';
import { SloClassSchema } from './slo.js';
import { PROTOCOL_ROOT } from './subjects.js';
import { MicrosSchema } from './time.js';
import {
  IdSchema,
  MAX_BODY_BYTES,
  MAX_CLOCK_ID_LENGTH,
  MAX_NAME_LENGTH,
  MAX_PRIORITY,
  MAX_REPLY_TO_LENGTH,
  MAX_REQUEST_TOKENS,
  MIN_PRIORITY,
  NameSchema,
  SubjectIdSchema,
  TokenCountSchema,
} from './wire-limits.js';

/** Attempts of one request at most: far above any `gateway.migrationLimit`, low enough to stay a small number. */
export const MAX_ATTEMPTS = 10_000;

/**
 * Per-stage durations in milliseconds, filled in as the request moves down the pipeline: each
 * stage's own time and, for the per-stage breakdown of the live path, each bus hop (`to…Ms`:
 * from the sender's handoff to the receiver's door, on one host's monotonic clock).
 */
export const StageTimingsSchema = z
  .object({
    /**
     * The client's send → the gateway's handler (the connection, the request's wait for the
     * gateway's event loop), when the client stamped its send on the same host (`x-sluice-sent-at`).
     */
    clientSendMs: z.number().nonnegative(),
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
    sentOn: z.string().max(MAX_CLOCK_ID_LENGTH),
  })
  .partial();
export type StageTimings = z.infer<typeof StageTimingsSchema>;

/**
 * What travels down the pipeline. Prompt text stays at the gateway: downstream stages need only
 * the token count and the block hashes (prefix caching and prefix-aware routing). Every field is
 * bounded (wire-limits.ts), and the ids that stages build subjects from must be subject tokens.
 */
export const InferenceRequestSchema = z
  .object({
    /** Stages build the inbox subject from it (a worker's lone tokens frame): a subject token. */
    id: SubjectIdSchema,
    model: NameSchema,
    inputTokens: TokenCountSchema,
    /**
     * Hierarchical hashes of the prompt's full 16-token blocks, as block ids (see block-hashes.ts):
     * never more than the prompt's full blocks (checked below), so a small request cannot carry
     * a huge array into the prefix indexes.
     */
    blockHashes: z.array(BlockIdSchema).max(MAX_REQUEST_TOKENS / BLOCK_SIZE),
    maxTokens: TokenCountSchema,
    /** Size of the HTTP request body: what flow control's `maxBytes` limits count. */
    bodyBytes: z.number().int().nonnegative().max(MAX_BODY_BYTES).default(0),
    sloClass: SloClassSchema,
    /** A 32-bit integer: priorities come from config (objectives, SLO classes). */
    priority: z.number().int().min(MIN_PRIORITY).max(MAX_PRIORITY),
    /** The tenant: a flow and a metric label at the flow controller. */
    fairnessId: z.string().max(MAX_NAME_LENGTH),
    objective: z.string().max(MAX_NAME_LENGTH).optional(),
    /** The client's TTFT objective (`x-slo-ttft-ms`), in µs, for SLO-deadline ordering. */
    sloTtftUs: z.number().positive().brand<'µs'>().optional(),
    /** When the gateway received it: epoch µs (queue waits and SLO deadlines count from here). */
    arrivalUs: MicrosSchema,
    /** When the gateway gives up on it (504): epoch µs. */
    deadlineUs: MicrosSchema,
    /** 0 for the first try; each migration adds one. */
    attempt: z.number().int().nonnegative().max(MAX_ATTEMPTS),
    /** The gateway that owns it: its inbox subjects are built from it (a worker's `tokens-batch`), so a subject token. */
    gatewayId: SubjectIdSchema,
    /** The inbox subject of the gateway that owns the request: exactly `subjects.inbox(gatewayId, id)` (checked below). */
    replyTo: z.string().min(1).max(MAX_REPLY_TO_LENGTH),
    timings: StageTimingsSchema.default({}),
    /**
     * Set by a router that disaggregates prefill from decode, on the handoff to the decode
     * instance: the instance that prefills the prompt first (docs/behaviour.md §1, "Disaggregated
     * prefill/decode"). Absent: the instance prefills it itself.
     */
    prefillInstanceId: SubjectIdSchema.optional(),
  })
  .superRefine((request, ctx) => {
    // Stages publish error, held and end frames to `replyTo`: anything but the owner's inbox for
    // this request would let a forged request make a stage publish where the sender chose.
    if (request.replyTo !== `${PROTOCOL_ROOT}.inbox.${request.gatewayId}.${request.id}`) {
      ctx.addIssue({ code: 'custom', path: ['replyTo'], message: 'must be the inbox of this request at its gateway (sluice.v1.inbox.<gatewayId>.<id>)' });
    }
    if (request.blockHashes.length > Math.floor(request.inputTokens / BLOCK_SIZE)) {
      ctx.addIssue({ code: 'custom', path: ['blockHashes'], message: `more block ids (${request.blockHashes.length}) than the prompt has full blocks of ${BLOCK_SIZE} tokens` });
    }
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
  requestId: IdSchema,
  reason: z.enum(['client_disconnected', 'timeout', 'ended', 'superseded']),
  /** Attempts up to and including this one are cancelled; omitted: every attempt. */
  attempt: z.number().int().nonnegative().max(MAX_ATTEMPTS).optional(),
  /**
   * Only the copy this holder (a worker instance) took: a second copy of one attempt, which a
   * duplicated handoff put on another process. Every other copy, and every other process, keeps it.
   */
  holder: IdSchema.optional(),
});
export type CancelRequest = z.infer<typeof CancelRequestSchema>;

/** The reason a stage records when it lets a cancelled request go (its done event, its eviction count). */
export function cancelledAs(reason: CancelRequest['reason']): 'client_disconnected' | 'timeout' | 'cancelled' {
  return reason === 'client_disconnected' || reason === 'timeout' ? reason : 'cancelled';
}
