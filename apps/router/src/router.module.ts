import { Module } from '@nestjs/common';
import { InferenceRequestSchema, queueGroups, subjects } from '@sluice/contracts';
import { REQUEST_CANCEL_ROUTE, WORKER_EVENT_ROUTES, type InboundRoute } from '@sluice/service';
import { RouterController } from './router.controller.js';
import { RouterService } from './router.service.js';
import { routingRegistryProvider } from './routing.registry.js';

/** Submissions are shared by the queue group; worker events go to every router replica. */
export const ROUTER_ROUTES = new Map<string, InboundRoute>([
  [subjects.routerSubmit(), { schema: InferenceRequestSchema, queue: queueGroups.router, kind: 'handoff' }],
  REQUEST_CANCEL_ROUTE,
  WORKER_EVENT_ROUTES.lifecycle,
  WORKER_EVENT_ROUTES.load,
  WORKER_EVENT_ROUTES.done,
]);

@Module({ controllers: [RouterController], providers: [routingRegistryProvider, RouterService], exports: [RouterService] })
export class RouterModule {}
