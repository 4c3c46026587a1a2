import { requestStage } from '@sluice/service';
import { BusyThresholdUpdateSchema, SetAdmissionPolicySchema, subjectPatterns } from '@sluice/contracts';
import { loadProfile } from '@sluice/config';
import { AdmissionStage, admissionSettingsFrom, stepCoefficientsFrom } from '@sluice/stages';
import { z } from 'zod';
import { AdmissionOnBus } from './admission-on-bus.js';
import { admissionControls } from './admission.controls.js';
import { AdmissionMetrics } from './admission.metrics.js';

/**
 * The admission stage on the stage host: libs/stages AdmissionStage holds every rule,
 * `AdmissionOnBus` turns its effects into handoffs, error frames, spans and metrics. Worker events
 * flow control's queue reports and control verbs reach every replica, so each keeps the same
 * cluster view and the same policy;
 * the replicas' own presence events tell each how many share the arrivals (a token bucket is
 * split among them).
 */
export const ADMISSION_STAGE = requestStage({
  stage: 'admission',
  follows: ['lifecycle', 'load', 'kv', 'flowQueue'],
  hears: ['busy-thresholds'],
  presence: subjectPatterns.admissionPresence,
  controls: { get: z.object({}), set: SetAdmissionPolicySchema, 'get-busy-threshold': z.object({}), 'set-busy-threshold': BusyThresholdUpdateSchema },
  wire({ service, wakeUps, intake, logger }) {
    const { admission, models, worker } = service.config;
    const metrics = new AdmissionMetrics(service.metrics, models.map((m) => m.name));
    const onBus = new AdmissionOnBus(service, metrics, logger, intake, (request, carried, message, why) => stage.handoffRefused(request, carried, message, why));
    // The workers' profile, in wall-clock µs: predictions follow the model served, at the speed it is served.
    const stepCoefficients = { [worker.model]: stepCoefficientsFrom(loadProfile(service.config), worker.timeScale) };
    const settings = { ...admissionSettingsFrom(admission, models.map((m) => m.name), 'always'), stepCoefficients };
    const stage = new AdmissionStage(settings, onBus, wakeUps);
    metrics.showPolicy(stage.policyState(), false);
    return {
      core: stage,
      take: (request, nowUs) => stage.submit(request, nowUs, onBus.received(request)),
      follow: {
        lifecycle: (event) => stage.onLifecycle(event),
        load: (snapshot) => stage.onSnapshot(snapshot),
        kv: (event) => stage.onKv(event),
        flowQueue: (report) => stage.onFlowQueue(report),
      },
      hear: {
        /** A peer's newer busy thresholds (this replica started after a change, or missed one). */
        'busy-thresholds': (announcement) => {
          if (!stage.onBusyThresholds(announcement)) return;
          logger.log(`busy thresholds taken from a peer: ${JSON.stringify(announcement.settings)}`);
          metrics.showPolicy(stage.policyState(), true);
        },
      },
      /** An admission process (a replica, or this one) came up, beat or went down: the budget's split. */
      presence: (event, nowUs) => {
        stage.onPresence(event, nowUs);
        metrics.replicas.set(stage.replicaCount());
      },
      controls: admissionControls(stage, metrics, logger),
    };
  },
});
