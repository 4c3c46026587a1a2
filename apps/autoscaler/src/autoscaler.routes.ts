import { PresenceEventSchema, subjectPatterns } from '@sluice/contracts';
import { WORKER_EVENT_ROUTES, type InboundRoute } from '@sluice/service';

/**
 * What the autoscaler hears (events, no queue group): the instances' lifecycle and load, flow
 * control's queue reports (the demand that waits), and the worker processes' presence (the
 * processes it sizes, a parked one included).
 */
export const AUTOSCALER_ROUTES: ReadonlyMap<string, InboundRoute> = new Map<string, InboundRoute>([
  WORKER_EVENT_ROUTES.lifecycle,
  WORKER_EVENT_ROUTES.load,
  WORKER_EVENT_ROUTES.flowQueue,
  [subjectPatterns.workerPresence, { schema: PresenceEventSchema, kind: 'event' }],
]);
