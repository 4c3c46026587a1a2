import { z } from 'zod';

/**
 * The reply to a "request in" hop. It confirms receipt only: the receiver acks at once, then
 * works. A nack says the message could not be taken (it failed validation at the edge).
 */
export const AckSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true) }),
  z.object({ ok: z.literal(false), message: z.string() }),
]);
export type Ack = z.infer<typeof AckSchema>;
