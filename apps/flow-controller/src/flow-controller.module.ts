import { Module } from '@nestjs/common';
import { InferenceRequestSchema, queueGroups, subjects } from '@sluice/contracts';
import type { InboundRoute } from '@sluice/bus';
import { FlowControllerController } from './flow-controller.controller.js';
import { FlowControllerService } from './flow-controller.service.js';

export const FLOW_CONTROLLER_ROUTES = new Map<string, InboundRoute>([
  [subjects.flowSubmit(), { schema: InferenceRequestSchema, queue: queueGroups.flowController, kind: 'handoff' }],
]);

@Module({ controllers: [FlowControllerController], providers: [FlowControllerService] })
export class FlowControllerModule {}
