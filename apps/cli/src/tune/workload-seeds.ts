import type { WorkloadSpec } from '@sluice/workload';
import { workloadInputFromSpec, type WorkloadInput } from '../run/read-workload-input.js';

/** The same workload spec with another seed: other arrivals and lengths from the same distributions. */
export function workloadWithSeed(workload: WorkloadInput, seed: number): WorkloadInput {
  if (workload.kind !== 'spec') throw new Error(`${workload.file} is a trace: its arrivals are fixed, a workload seed would change nothing`);
  return workloadInputFromSpec(workload.file, { ...(workload.spec as WorkloadSpec), seed });
}
