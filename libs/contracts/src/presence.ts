import { z } from 'zod';
import { SERVICES } from './subjects.js';
import { MicrosSchema } from './time.js';
import { IdSchema } from './wire-limits.js';

/**
 * A service process says it is alive (`subjects.servicePresence`): `up` when it starts, `heartbeat`
 * every heartbeat interval, `down` when it shuts down cleanly. A gateway that has a request held by
 * a process that goes silent for its heartbeat timeout re-submits the request.
 */
export const PresenceEventSchema = z.object({
  service: z.enum(SERVICES),
  processId: IdSchema,
  type: z.enum(['up', 'heartbeat', 'down']),
  /** When the process sent it: epoch µs. */
  atUs: MicrosSchema,
});
export type PresenceEvent = z.infer<typeof PresenceEventSchema>;
