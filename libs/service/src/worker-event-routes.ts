import { CancelRequestSchema, KvEventSchema, LifecycleEventSchema, LoadSnapshotSchema, RequestDoneSchema, subjectPatterns, subjects } from '@sluice/contracts';
import type { InboundRoute } from './bus.transport.js';

/**
 * The routes of what every worker instance reports, each subject pattern with its schema, for
 * the services that follow the workers. Events, no queue group: every replica gets each one, so
 * each keeps the same view of the cluster.
 */
export const WORKER_EVENT_ROUTES = {
  lifecycle: [subjectPatterns.allWorkerLifecycle, { schema: LifecycleEventSchema, kind: 'event' }],
  load: [subjectPatterns.allWorkerLoad, { schema: LoadSnapshotSchema, kind: 'event' }],
  kv: [subjectPatterns.allWorkerKv, { schema: KvEventSchema, kind: 'event' }],
  done: [subjectPatterns.allWorkerDone, { schema: RequestDoneSchema, kind: 'event' }],
} as const satisfies Record<string, readonly [string, InboundRoute]>;

/**
 * Cancels from gateways (a request ended, or an attempt superseded by a re-submission), for every
 * stage that takes requests: each replica gets each one and remembers it (RequestIntake).
 */
export const REQUEST_CANCEL_ROUTE = [subjects.requestCancel(), { schema: CancelRequestSchema, kind: 'event' }] as const satisfies readonly [string, InboundRoute];
