import { z } from 'zod';
import { isSubjectToken } from './subjects.js';

/**
 * Bounds on what a bus message may carry (docs/security.md, "Hostile bus messages"). Anyone who
 * reaches NATS can publish, so every receiving edge decodes only what fits these: a message that
 * does not is refused there and counted, instead of growing a stage's memory, turning into a subject
 * that throws when it is built, or costing a stage seconds of work.
 */

/**
 * The largest message a receiving edge decodes, in bytes of JSON: NATS's own default
 * `max_payload`, so an edge only refuses what a differently configured server let through. The
 * largest honest messages are far below it: a request for a 128k-token prompt carries 8,192 block
 * ids (~140 kB); a full `tokens-batch`, 1,024 frames (~150 kB).
 */
export const MAX_BUS_MESSAGE_BYTES = 1_048_576;

/** Tokens in a prompt or an answer at most: 2²⁴ (16.8 M), far above any model's context, yet a count no sum overflows. */
export const MAX_REQUEST_TOKENS = 16_777_216;

/** Block ids in one KV event's `stored` or `removed`: a step that fills a 1 M-token cache, with room to spare. */
export const MAX_KV_EVENT_BLOCKS = 65_536;

/** Characters in an id (request, gateway, instance, worker, process): the gateway's are ~20. */
export const MAX_ID_LENGTH = 128;

/** Characters in a name (model, tenant, objective): the gateway itself allows 64 for a tenant. */
export const MAX_NAME_LENGTH = 256;

/** Characters in a human-readable message carried in a frame (an error's detail). */
export const MAX_MESSAGE_LENGTH = 4_096;

/** A request's priority: a 32-bit integer (priorities come from config: objectives, SLO classes). */
export const MIN_PRIORITY = -(2 ** 31);
export const MAX_PRIORITY = 2 ** 31 - 1;

/** Bytes of an HTTP request body a request may say it had (`bodyBytes`, what flow control's `maxBytes` counts). */
export const MAX_BODY_BYTES = 2 ** 32;

/** Characters in a host clock's id (a hop's `sentOn` stamp). */
export const MAX_CLOCK_ID_LENGTH = 64;

/** Characters in a request's `replyTo`: the inbox subject built from two ids. */
export const MAX_REPLY_TO_LENGTH = 2 * MAX_ID_LENGTH + 32;

/** KV blocks of one instance at most (2³¹): a count, not a size any real cache reaches. */
export const MAX_KV_BLOCKS = 2 ** 31;

/** Data-parallel ranks of one worker at most. */
export const MAX_RANK = 65_535;

/**
 * An id that senders put into subjects (`sluice.v1.inbox.<gateway>.<request>`,
 * `sluice.v1.worker.<instance>.submit`): checked here, at the edge, because building a subject from
 * an id with a `.` or a wildcard throws, and it would throw later, deep in a stage's turn.
 */
export const SubjectIdSchema = z
  .string()
  .min(1)
  .max(MAX_ID_LENGTH)
  .refine(isSubjectToken, { message: 'must be a subject token: letters, digits, "_" or "-"' });

/** An id that is shown or compared but never put into a subject (a holder, an instance in a frame). */
export const IdSchema = z.string().min(1).max(MAX_ID_LENGTH);

/** A model, tenant or objective name. */
export const NameSchema = z.string().min(1).max(MAX_NAME_LENGTH);

/** A count of tokens. */
export const TokenCountSchema = z.number().int().nonnegative().max(MAX_REQUEST_TOKENS);
