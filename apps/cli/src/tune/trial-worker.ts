import { parentPort, workerData } from 'node:worker_threads';
import { readWorkloadInput, type WorkloadInput } from '../run/read-workload-input.js';
import { runTwinTrial } from './twin-trial.js';
import { workloadWithSeed } from './workload-seeds.js';
import type { TrialReply, TrialRequest, TrialWorkerData } from './trial-messages.js';

/*
 * A worker thread of `sluice tune`: reads the workload once, then runs each trial it is sent in
 * the twin and answers with the run's summary. One trial at a time: the twin is single-threaded
 * and CPU-bound, so a thread per core is the parallelism.
 */
const data = workerData as TrialWorkerData;
let workload: WorkloadInput | undefined;
/** The workload regenerated per workload seed, each once. */
const bySeed = new Map<number, WorkloadInput>();

function workloadFor(seed: number | undefined): WorkloadInput {
  workload ??= readWorkloadInput(data.workloadFile);
  if (seed === undefined) return workload;
  let seeded = bySeed.get(seed);
  if (seeded === undefined) bySeed.set(seed, (seeded = workloadWithSeed(workload, seed)));
  return seeded;
}

parentPort?.on('message', (request: TrialRequest) => {
  let reply: TrialReply;
  try {
    reply = { id: request.id, ok: true, ...runTwinTrial(workloadFor(request.job.workloadSeed), request.job, data.env) };
  } catch (error) {
    reply = { id: request.id, ok: false, message: (error as Error).message };
  }
  parentPort?.postMessage(reply);
});
