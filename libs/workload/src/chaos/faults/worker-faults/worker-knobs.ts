import { WorkerFaultsSchema, type SetWorkerFaults } from '@sluice/contracts';

export type WorkerKnobs = SetWorkerFaults['faults'];

/** The knobs a worker-faults fault sets, as the worker's set-faults verb takes them: only those it names. */
export function knobsOf(fault: { readonly slowdown?: number | undefined; readonly failureRate?: number | undefined; readonly hang?: boolean | undefined }): WorkerKnobs {
  return {
    ...(fault.slowdown === undefined ? {} : { slowdown: fault.slowdown }),
    ...(fault.failureRate === undefined ? {} : { failureRate: fault.failureRate }),
    ...(fault.hang === undefined ? {} : { hang: fault.hang }),
  };
}

/** The same knobs at their defaults: undoing a fault resets what it set and nothing else. */
export function defaultsOf(knobs: WorkerKnobs): WorkerKnobs {
  const defaults = WorkerFaultsSchema.parse({});
  return Object.fromEntries(Object.keys(knobs).map((key) => [key, defaults[key as keyof typeof defaults]]));
}
