import type { z } from 'zod';
import {
  CancelRequestSchema,
  FlowQueueReportSchema,
  KvEventSchema,
  LifecycleEventSchema,
  LoadSnapshotSchema,
  RequestDoneSchema,
  subjectPatterns,
  subjects,
  type FlowQueueReport,
  type KvEvent,
  type LifecycleEvent,
  type LoadSnapshot,
  type RequestDone,
} from '@sluice/contracts';
import type { InboundRoute } from './bus.transport.js';

/**
 * The routes of what every worker instance reports, each subject pattern with its schema, for
 * the services that follow the workers, and flow control's queue reports (admission follows them
 * beside the workers' snapshots). Events, no queue group: every replica gets each one, so each
 * keeps the same view of the cluster.
 */
export const WORKER_EVENT_ROUTES = {
  lifecycle: [subjectPatterns.allWorkerLifecycle, { schema: LifecycleEventSchema, kind: 'event' }],
  load: [subjectPatterns.allWorkerLoad, { schema: LoadSnapshotSchema, kind: 'event' }],
  kv: [subjectPatterns.allWorkerKv, { schema: KvEventSchema, kind: 'event' }],
  done: [subjectPatterns.allWorkerDone, { schema: RequestDoneSchema, kind: 'event' }],
  flowQueue: [subjectPatterns.allFlowQueues, { schema: FlowQueueReportSchema, kind: 'event' }],
} as const satisfies Record<string, readonly [string, InboundRoute]>;

/** The worker reports a stage may follow. */
export type WorkerEventKind = keyof typeof WORKER_EVENT_ROUTES;

/** What each worker report carries. */
export interface WorkerEvents {
  readonly lifecycle: LifecycleEvent;
  readonly load: LoadSnapshot;
  readonly kv: KvEvent;
  readonly done: RequestDone;
  readonly flowQueue: FlowQueueReport;
}

/** Each report's schema (its route's), typed by what it carries, so a handler of any kind is typed by its kind. */
export const WORKER_EVENT_SCHEMAS: { readonly [E in WorkerEventKind]: z.ZodType<WorkerEvents[E]> } = {
  lifecycle: WORKER_EVENT_ROUTES.lifecycle[1].schema,
  load: WORKER_EVENT_ROUTES.load[1].schema,
  kv: WORKER_EVENT_ROUTES.kv[1].schema,
  done: WORKER_EVENT_ROUTES.done[1].schema,
  flowQueue: WORKER_EVENT_ROUTES.flowQueue[1].schema,
};

/**
 * Cancels from gateways (a request ended, or an attempt superseded by a re-submission), for every
 * stage that takes requests: each replica gets each one and remembers it (RequestIntake).
 */
export const REQUEST_CANCEL_ROUTE = [subjects.requestCancel(), { schema: CancelRequestSchema, kind: 'event' }] as const satisfies readonly [string, InboundRoute];
