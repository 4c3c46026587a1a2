import { Module } from '@nestjs/common';
import { REQUEST_CANCEL_ROUTE, WORKER_EVENT_ROUTES, type InboundRoute } from '@sluice/service';
import { BusyThresholdUpdateSchema, InferenceRequestSchema, PresenceEventSchema, SetAdmissionPolicySchema, queueGroups, subjectPatterns, subjects } from '@sluice/contracts';
import { z } from 'zod';
import { AdmissionController } from './admission.controller.js';
import { AdmissionService } from './admission.service.js';

/**
 * Submissions are shared by the queue group. Worker events and control verbs reach every
 * admission replica, so each keeps the same cluster view and the same policy; the replicas' own
 * presence events tell each how many share the arrivals (a token bucket is split among them).
 */
export const ADMISSION_ROUTES = new Map<string, InboundRoute>([
  [subjects.admissionSubmit(), { schema: InferenceRequestSchema, queue: queueGroups.admission, kind: 'handoff' }],
  REQUEST_CANCEL_ROUTE,
  WORKER_EVENT_ROUTES.lifecycle,
  WORKER_EVENT_ROUTES.load,
  WORKER_EVENT_ROUTES.kv,
  [subjectPatterns.admissionPresence, { schema: PresenceEventSchema, kind: 'event' }],
  [subjects.control('admission', 'get'), { schema: z.object({}), kind: 'control' }],
  [subjects.control('admission', 'set'), { schema: SetAdmissionPolicySchema, kind: 'control' }],
  [subjects.control('admission', 'get-busy-threshold'), { schema: z.object({}), kind: 'control' }],
  [subjects.control('admission', 'set-busy-threshold'), { schema: BusyThresholdUpdateSchema, kind: 'control' }],
]);

@Module({ controllers: [AdmissionController], providers: [AdmissionService] })
export class AdmissionModule {}
