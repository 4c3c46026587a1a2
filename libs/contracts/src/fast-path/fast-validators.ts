import type { z } from 'zod';
import { EndFrameSchema, HeldFrameSchema, InboxFrameSchema, TokensBatchFrameSchema, TokensFrameSchema } from '../frames.js';
import { InferenceRequestSchema } from '../inference-request.js';
import { KvEventSchema, LoadSnapshotSchema, RequestDoneSchema } from '../worker-events.js';
import { isExactEndFrame, isExactHeldFrame, isExactInboxFrame, isExactTokensBatchFrame, isExactTokensFrame } from './inbox-frames.fast.js';
import { isExactInferenceRequest } from './inference-request.fast.js';
import { isExactKvEvent, isExactLoadSnapshot, isExactRequestDone } from './worker-events.fast.js';

/**
 * A fast validator of one schema: true only for a value the schema would accept and return
 * unchanged (deep-equal: no unknown key to strip, no default to fill, no transform), so the
 * receiving edge can take the decoded JSON as it is. False says nothing: the edge asks zod, which
 * accepts, strips and fills as ever, and words the error when it refuses. The schema stays the
 * one definition of the message; the property specs hold each validator to it.
 */
export type FastValidator = (value: unknown) => boolean;

/**
 * The messages each request makes many of (libs/contracts/bench/capture-messages.mjs counts them):
 * four handoffs of the request, a `held` frame from each stage behind the gateway, the end frame,
 * the workers' load snapshots, done and KV events (each heard by two or three services). Zod's check
 * of them was 5–13% of every service's busy time (docs/benchmarks.md, "Profiles of the hot path").
 */
const FAST_VALIDATORS: ReadonlyMap<z.ZodType, FastValidator> = new Map<z.ZodType, FastValidator>([
  [InferenceRequestSchema, isExactInferenceRequest],
  [InboxFrameSchema, isExactInboxFrame],
  [TokensFrameSchema, isExactTokensFrame],
  [TokensBatchFrameSchema, isExactTokensBatchFrame],
  [EndFrameSchema, isExactEndFrame],
  [HeldFrameSchema, isExactHeldFrame],
  [LoadSnapshotSchema, isExactLoadSnapshot],
  [RequestDoneSchema, isExactRequestDone],
  [KvEventSchema, isExactKvEvent],
]);

/** The fast validator of this very schema object, if it has one; a schema without one is checked by zod alone. */
export function fastValidatorOf(schema: z.ZodType): FastValidator | undefined {
  return FAST_VALIDATORS.get(schema);
}
