import { Module } from '@nestjs/common';
import { InferenceRequestSchema, queueGroups, subjects } from '@sluice/contracts';
import type { InboundRoute } from '@sluice/bus';
import { AdmissionController } from './admission.controller.js';
import { AdmissionService } from './admission.service.js';

export const ADMISSION_ROUTES = new Map<string, InboundRoute>([
  [subjects.admissionSubmit(), { schema: InferenceRequestSchema, queue: queueGroups.admission, kind: 'handoff' }],
]);

@Module({ controllers: [AdmissionController], providers: [AdmissionService] })
export class AdmissionModule {}
