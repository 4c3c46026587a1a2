import { z } from 'zod';
import { IdSchema } from './wire-limits.js';

/**
 * The reply to a "request in" hop. It confirms receipt only: the receiver acks at once, then
 * works. A nack says the message could not be taken (it failed validation at the edge).
 *
 * `holder`: the receiving process's id, on the acks of a stage whose sender is always the gateway
 * that owns the request (admission). That gateway waits for this ack anyway, so it learns who holds
 * the request from it, and the stage sends no `held` frame: one message fewer per request.
 */
export const AckSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), holder: IdSchema.optional() }),
  z.object({ ok: z.literal(false), message: z.string() }),
]);
export type Ack = z.infer<typeof AckSchema>;
