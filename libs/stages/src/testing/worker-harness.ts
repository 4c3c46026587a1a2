import { Agenda, Recorder } from './recorder.js';
import { micros, type Micros } from '@sluice/contracts';
import { createBlackboxModel } from '@sluice/engine';
import type { HeldRequest } from '../worker/held-request.js';
import type { InstanceCore } from '../worker/instance.core.js';
import type { InstanceWakeUp, WorkerEffects, WorkerWakeUp } from '../worker/worker.effects.js';
import { WorkerStage } from '../worker/worker.stage.js';
import type { WorkerSettings } from '../worker/worker.settings.js';

/**
 * qwen3-14b on H100 (its profile's coefficients), all in whole µs:
 *   queueing delay α0 + α1·512 = 8982; prefill of 512 = 33773; of 16 = 14209; one decode = 13605;
 *   two = 13632.
 */
export const qwen = createBlackboxModel({ alpha: [8888.089034, 0.18489, 0.0], beta: [13578.186663, 39.444656, 27.322775] });

/**
 * A worker stage for the specs: one qwen3-14b instance unless the overrides say otherwise, every
 * effect recorded, every wake-up on an agenda that checks the instance's invariants (work and KV
 * conservation) after it runs.
 */
export function workerHarness<H extends HeldRequest>(overrides: Partial<WorkerSettings> = {}) {
  const recorder = new Recorder();
  const agenda = new Agenda<InstanceWakeUp | WorkerWakeUp>();
  const settings: WorkerSettings = {
    workerId: 'w',
    instances: 1,
    startupUs: micros(0),
    drainGraceUs: micros(5_000_000),
    model: 'qwen3-14b',
    latency: qwen,
    totalKvBlocks: 17_600,
    maxModelLen: 40_960,
    maxRunning: 256,
    maxBatchTokens: 2_048,
    scheduler: 'fcfs',
    heartbeatIntervalUs: micros(1_000_000),
    loadIntervalUs: micros(50_000),
    publishOnChange: false,
    ...overrides,
  };
  const effects = recorder.port<WorkerEffects<H>>({
    wakeInstance: (instance: InstanceCore<H>, kind: InstanceWakeUp, atUs: Micros) =>
      agenda.add(kind, atUs, () => {
        instance.wake(kind, atUs);
        instance.checkInvariants();
      }),
    wakeWorker: (kind: WorkerWakeUp, atUs: Micros) => agenda.add(kind, atUs, () => stage.wake(kind, atUs)),
  });
  const stage = new WorkerStage<H>(settings, effects, () => () => 0.5);
  return { stage, instance: stage.instances[0]!, recorder, agenda };
}
