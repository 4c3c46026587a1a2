import { Module } from '@nestjs/common';
import {
  InferenceRequestSchema,
  LifecycleEventSchema,
  LoadSnapshotSchema,
  RequestDoneSchema,
  queueGroups,
  subjectPatterns,
  subjects,
} from '@sluice/contracts';
import type { InboundRoute } from '@sluice/bus';
import { RouterController } from './router.controller.js';
import { RouterService } from './router.service.js';
import { routingRegistryProvider } from './routing.registry.js';

/** Submissions are shared by the queue group; worker events go to every router replica. */
export const ROUTER_ROUTES = new Map<string, InboundRoute>([
  [subjects.routerSubmit(), { schema: InferenceRequestSchema, queue: queueGroups.router, kind: 'handoff' }],
  [subjectPatterns.allWorkerLifecycle, { schema: LifecycleEventSchema, kind: 'event' }],
  [subjectPatterns.allWorkerLoad, { schema: LoadSnapshotSchema, kind: 'event' }],
  [subjectPatterns.allWorkerDone, { schema: RequestDoneSchema, kind: 'event' }],
]);

@Module({ controllers: [RouterController], providers: [routingRegistryProvider, RouterService], exports: [RouterService] })
export class RouterModule {}
