import {
  BusyThresholdUpdateSchema,
  CancelRequestSchema,
  InferenceRequestSchema,
  KvEventSchema,
  LifecycleEventSchema,
  LoadSnapshotSchema,
  PresenceEventSchema,
  RequestDoneSchema,
  BusyThresholdsAnnouncementSchema,
  SetAdmissionPolicySchema,
  subjectPatterns,
} from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { requestStage } from './stage-definition.js';
import { stageRoutes } from './stage-routes.js';

/** Definitions whose wiring is never run: only their routes are read. */
const notWired = (): never => {
  throw new Error('not wired in this test');
};

const get = z.object({});

describe('stageRoutes', () => {
  it("gives a routing stage the router's route table: submissions in its queue group, cancels and the worker reports it follows as events", () => {
    const routes = stageRoutes(requestStage({ stage: 'router', follows: ['lifecycle', 'load', 'done'], wire: notWired }));
    expect([...routes]).toEqual([
      ['sluice.v1.router.submit', { schema: InferenceRequestSchema, queue: 'sluice-router', kind: 'handoff' }],
      ['sluice.v1.request.cancel', { schema: CancelRequestSchema, kind: 'event' }],
      ['sluice.v1.worker.*.lifecycle', { schema: LifecycleEventSchema, kind: 'event' }],
      ['sluice.v1.worker.*.load', { schema: LoadSnapshotSchema, kind: 'event' }],
      ['sluice.v1.worker.*.done', { schema: RequestDoneSchema, kind: 'event' }],
    ]);
  });

  it('adds what a stage hears from other stages as events: the router hears admission’s busy thresholds', () => {
    const routes = stageRoutes(requestStage({ stage: 'router', follows: [], hears: ['busy-thresholds'], wire: notWired }));
    expect(routes.get('sluice.v1.admission.busy-thresholds')).toEqual({ schema: BusyThresholdsAnnouncementSchema, kind: 'event' });
  });

  it('puts each stage on its own submit subject and queue group', () => {
    const submitOf = (stage: 'admission' | 'flow' | 'router') => [...stageRoutes(requestStage({ stage, follows: [], wire: notWired }))][0];
    expect(submitOf('admission')).toEqual(['sluice.v1.admission.submit', { schema: InferenceRequestSchema, queue: 'sluice-admission', kind: 'handoff', ackNamesHolder: true }]);
    expect(submitOf('flow')).toEqual(['sluice.v1.flow.submit', { schema: InferenceRequestSchema, queue: 'sluice-flow-controller', kind: 'handoff' }]);
  });

  it("gives admission its replicas' presence and its control verbs, request/reply on its own control subjects with their schemas", () => {
    const routes = stageRoutes(
      requestStage({
        stage: 'admission',
        follows: ['lifecycle', 'load', 'kv'],
        presence: subjectPatterns.admissionPresence,
        controls: { get, set: SetAdmissionPolicySchema, 'get-busy-threshold': get, 'set-busy-threshold': BusyThresholdUpdateSchema },
        wire: notWired,
      }),
    );
    expect([...routes.keys()]).toEqual([
      'sluice.v1.admission.submit',
      'sluice.v1.request.cancel',
      'sluice.v1.worker.*.lifecycle',
      'sluice.v1.worker.*.load',
      'sluice.v1.worker.*.kv',
      'sluice.v1.service.admission.*.presence',
      'sluice.v1.control.admission.get',
      'sluice.v1.control.admission.set',
      'sluice.v1.control.admission.get-busy-threshold',
      'sluice.v1.control.admission.set-busy-threshold',
    ]);
    expect(routes.get('sluice.v1.worker.*.kv')).toEqual({ schema: KvEventSchema, kind: 'event' });
    expect(routes.get('sluice.v1.service.admission.*.presence')).toEqual({ schema: PresenceEventSchema, kind: 'event' });
    expect(routes.get('sluice.v1.control.admission.get')).toEqual({ schema: get, kind: 'control' });
    expect(routes.get('sluice.v1.control.admission.set')).toEqual({ schema: SetAdmissionPolicySchema, kind: 'control' });
    expect(routes.get('sluice.v1.control.admission.set-busy-threshold')).toEqual({ schema: BusyThresholdUpdateSchema, kind: 'control' });
  });
});
