import { Module } from '@nestjs/common';
import type { InboundRoute } from '@sluice/bus';
import {
  BusyThresholdUpdateSchema,
  InferenceRequestSchema,
  KvEventSchema,
  LifecycleEventSchema,
  LoadSnapshotSchema,
  SetAdmissionPolicySchema,
  queueGroups,
  subjectPatterns,
  subjects,
} from '@sluice/contracts';
import { z } from 'zod';
import { AdmissionController } from './admission.controller.js';
import { AdmissionService } from './admission.service.js';

/**
 * Submissions are shared by the queue group. Worker events and control verbs reach every
 * admission replica, so each keeps the same cluster view and the same policy.
 */
export const ADMISSION_ROUTES = new Map<string, InboundRoute>([
  [subjects.admissionSubmit(), { schema: InferenceRequestSchema, queue: queueGroups.admission, kind: 'handoff' }],
  [subjectPatterns.allWorkerLifecycle, { schema: LifecycleEventSchema, kind: 'event' }],
  [subjectPatterns.allWorkerLoad, { schema: LoadSnapshotSchema, kind: 'event' }],
  [subjectPatterns.allWorkerKv, { schema: KvEventSchema, kind: 'event' }],
  [subjects.control('admission', 'get'), { schema: z.object({}), kind: 'control' }],
  [subjects.control('admission', 'set'), { schema: SetAdmissionPolicySchema, kind: 'control' }],
  [subjects.control('admission', 'get-busy-threshold'), { schema: z.object({}), kind: 'control' }],
  [subjects.control('admission', 'set-busy-threshold'), { schema: BusyThresholdUpdateSchema, kind: 'control' }],
]);

@Module({ controllers: [AdmissionController], providers: [AdmissionService] })
export class AdmissionModule {}
