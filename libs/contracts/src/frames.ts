import { z } from 'zod';
import { OutcomeReasonSchema, StageSchema } from './outcomes.js';
import { StageTimingsSchema } from './inference-request.js';

/** Frames on a request's inbox (`sluice.v1.inbox.<gateway>.<request>`). */
export const TokensFrameSchema = z.object({
  type: z.literal('tokens'),
  requestId: z.string(),
  /** Tokens produced by one engine step (usually 1 per request per step). */
  count: z.number().int().positive(),
  /** Wall-clock epoch ms at which the tokens were produced (end of the step). */
  atMs: z.number(),
  instanceId: z.string(),
});

export const EndFrameSchema = z.object({
  type: z.literal('end'),
  requestId: z.string(),
  reason: z.literal('ok'),
  outputTokens: z.number().int().nonnegative(),
  instanceId: z.string(),
  timings: StageTimingsSchema,
});

export const ErrorFrameSchema = z.object({
  type: z.literal('error'),
  requestId: z.string(),
  stage: StageSchema,
  reason: OutcomeReasonSchema,
  message: z.string(),
});

/**
 * The instance serving the request was lost (missed heartbeats, deregistered); the router sends it
 * to the gateway that owns the request. Migration is not built yet: the gateway ends the request
 * as `failed: worker_lost` (docs/behaviour.md §6). The router never sees tokens: the gateway knows
 * how many it already streamed.
 */
export const MigrateFrameSchema = z.object({
  type: z.literal('migrate'),
  requestId: z.string(),
  instanceId: z.string(),
});

export const InboxFrameSchema = z.discriminatedUnion('type', [
  TokensFrameSchema,
  EndFrameSchema,
  ErrorFrameSchema,
  MigrateFrameSchema,
]);

export type TokensFrame = z.infer<typeof TokensFrameSchema>;
export type EndFrame = z.infer<typeof EndFrameSchema>;
export type ErrorFrame = z.infer<typeof ErrorFrameSchema>;
export type MigrateFrame = z.infer<typeof MigrateFrameSchema>;
export type InboxFrame = z.infer<typeof InboxFrameSchema>;
