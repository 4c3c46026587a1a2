import { z } from 'zod';
import { OutcomeReasonSchema, StageSchema } from './outcomes.js';
import { MAX_ATTEMPTS, StageTimingsSchema } from './inference-request.js';
import { IdSchema, MAX_MESSAGE_LENGTH, MAX_REQUEST_TOKENS, TokenCountSchema } from './wire-limits.js';

/**
 * The attempt a frame belongs to (0 = the first try; each migration or re-submission adds one).
 * The gateway acts only on frames of a request's current attempt, so a stale attempt still running
 * somewhere cannot add tokens, end or fail the request (docs/behaviour.md §6).
 */
const Attempt = z.number().int().nonnegative().max(MAX_ATTEMPTS).default(0);

/** Tokens in one frame: at least one, never more than a request can have. */
const Tokens = z.number().int().positive().max(MAX_REQUEST_TOKENS);

/**
 * A frame's human-readable detail: cut to its first MAX_MESSAGE_LENGTH characters rather than
 * refused, so an honest but long message (a nack's list of schema errors) still ends its request.
 */
const Message = z.string().transform((m) => (m.length > MAX_MESSAGE_LENGTH ? `${m.slice(0, MAX_MESSAGE_LENGTH)}…` : m));

/** Frames on a request's inbox (`sluice.v1.inbox.<gateway>.<request>`). */
export const TokensFrameSchema = z.object({
  type: z.literal('tokens'),
  requestId: IdSchema,
  /** Tokens produced by one engine step (usually 1 per request per step). */
  attempt: Attempt,
  count: Tokens,
  /**
   * Tokens this attempt has produced so far, these included: a duplicated frame (it adds nothing
   * new) is ignored and a lost one shows as a gap the next frame fills, so the client's stream
   * never repeats or skips a token.
   */
  generated: Tokens.optional(),
  /** Wall-clock epoch ms at which the tokens were produced (end of the step). */
  atMs: z.number(),
  instanceId: IdSchema,
});

export const EndFrameSchema = z.object({
  type: z.literal('end'),
  requestId: IdSchema,
  attempt: Attempt,
  reason: z.literal('ok'),
  /** Tokens the attempt produced in all: the completing step's tokens come only here (no tokens frame for them). */
  outputTokens: TokenCountSchema,
  /** Prompt tokens of this attempt served from the instance's prefix cache (absent from older workers). */
  cachedTokens: TokenCountSchema.optional(),
  instanceId: IdSchema,
  timings: StageTimingsSchema,
});

export const ErrorFrameSchema = z.object({
  type: z.literal('error'),
  requestId: IdSchema,
  attempt: Attempt,
  stage: StageSchema,
  reason: OutcomeReasonSchema,
  message: Message,
  /**
   * The deciding rule's estimate of when the request would pass, in ms (a token bucket's refill
   * time): the gateway's `retry-after`. Absent when the rule has none.
   */
  retryAfterMs: z.number().nonnegative().finite().optional(),
});

/** Why a request is re-submitted (`sluice_migrations_total{reason}`). */
export const MIGRATION_REASONS = [
  /** The worker instance serving it was lost (missed heartbeats, deregistered, killed). */
  'worker_lost',
  /** The worker instance serving it drained past its grace period and handed it back. */
  'worker_draining',
  /** The process holding it (admission, flow controller, router) went silent. */
  'stage_lost',
  /** The process holding it shut down and handed it back (a flow controller's queue). */
  'stage_shutdown',
  /** The next stage had no responder (a restart in progress): the holder handed it back. */
  'next_unavailable',
  /** The gateway's own NATS connection came back after an outage: frames may have been lost. */
  'bus_reconnected',
] as const;
export const MigrationReasonSchema = z.enum(MIGRATION_REASONS);
export type MigrationReason = z.infer<typeof MigrationReasonSchema>;

/** Where a handed-back request re-enters the pipeline: the stage it had not yet left. */
export const RESUME_STAGES = ['admission', 'flow', 'router'] as const;
export const ResumeStageSchema = z.enum(RESUME_STAGES);
export type ResumeStage = z.infer<typeof ResumeStageSchema>;

/**
 * A stage took a request: the gateway that owns it learns who holds it now, so it can re-submit
 * the request when that holder is lost (docs/architecture.md, "Faults"). `holder` is a service
 * process's id (admission, flow controller, router) or a worker instance's id; each holder's
 * liveness comes from its heartbeats (presence or instance lifecycle).
 */
export const HeldFrameSchema = z.object({
  type: z.literal('held'),
  requestId: IdSchema,
  attempt: Attempt,
  stage: StageSchema,
  holder: IdSchema,
});

/**
 * Hand the request back to its gateway, which re-submits it (a new attempt) or ends it when the
 * migration limit is spent. Sent by the router for the requests of a lost instance, by a worker
 * that drained past its grace, by a stage that shuts down or whose next stage has no responder.
 * No stage sees tokens: the gateway knows how many it streamed and appends them to the prompt.
 */
export const MigrateFrameSchema = z.object({
  type: z.literal('migrate'),
  requestId: IdSchema,
  /** The attempt handed back: a migrate for an older attempt is ignored. */
  attempt: Attempt,
  /** Who held it: a worker instance or a service process id. */
  holder: IdSchema,
  reason: MigrationReasonSchema,
  resumeAt: ResumeStageSchema.default('router'),
});

/**
 * Many requests' tokens frames in one message: what one worker process produced for one gateway
 * in one turn (its instances' steps that ended together), sent on the gateway's batch subject
 * (`subjects.inboxTokens`). While many streams are open this is one message per turn instead of
 * one per request and step: at 2× the default cluster's capacity of 64-token streams, ~25,000
 * frames/s became a few hundred messages. A turn with one frame sends it alone, on
 * the request's own inbox subject.
 */
/** Frames per `tokens-batch` at most (a turn of 64 instances × 256 running requests for one gateway is 16 messages). */
export const TOKENS_BATCH_MAX_FRAMES = 1024;
export const TokensBatchFrameSchema = z.object({
  type: z.literal('tokens-batch'),
  frames: z.array(TokensFrameSchema).min(1).max(TOKENS_BATCH_MAX_FRAMES),
});

export const InboxFrameSchema = z.discriminatedUnion('type', [
  TokensBatchFrameSchema,
  TokensFrameSchema,
  EndFrameSchema,
  ErrorFrameSchema,
  MigrateFrameSchema,
  HeldFrameSchema,
]);

export type TokensFrame = z.infer<typeof TokensFrameSchema>;
export type TokensBatchFrame = z.infer<typeof TokensBatchFrameSchema>;
export type EndFrame = z.infer<typeof EndFrameSchema>;
export type ErrorFrame = z.infer<typeof ErrorFrameSchema>;
export type MigrateFrame = z.infer<typeof MigrateFrameSchema>;
export type HeldFrame = z.infer<typeof HeldFrameSchema>;
export type InboxFrame = z.infer<typeof InboxFrameSchema>;
