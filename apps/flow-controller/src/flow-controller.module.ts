import { Module } from '@nestjs/common';
import { CancelRequestSchema, InferenceRequestSchema, queueGroups, subjects } from '@sluice/contracts';
import { WORKER_EVENT_ROUTES, type InboundRoute } from '@sluice/service';
import { flowControlRegistryProvider } from './flow-control.registry.js';
import { FlowControllerController } from './flow-controller.controller.js';
import { FlowControllerService } from './flow-controller.service.js';

/** Submissions are shared by the queue group; worker events and cancels reach every replica. */
export const FLOW_CONTROLLER_ROUTES = new Map<string, InboundRoute>([
  [subjects.flowSubmit(), { schema: InferenceRequestSchema, queue: queueGroups.flowController, kind: 'handoff' }],
  [subjects.requestCancel(), { schema: CancelRequestSchema, kind: 'event' }],
  WORKER_EVENT_ROUTES.lifecycle,
  WORKER_EVENT_ROUTES.load,
  WORKER_EVENT_ROUTES.done,
]);

@Module({ controllers: [FlowControllerController], providers: [flowControlRegistryProvider, FlowControllerService] })
export class FlowControllerModule {}
