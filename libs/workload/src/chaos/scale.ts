import type { Diurnal } from '../rate-shape/diurnal.js';
import type { WorkloadSpec } from '../spec.js';
import type { Fault } from './scenario.js';

/**
 * Shrinks (or stretches) a chaos scenario's time axis by `factor`, so CI can run a 25 s scenario in
 * a few seconds (`sluice chaos --short`): the workload keeps its rate and mix but sends
 * `factor` times as many requests (num_requests and horizon both scale, so whichever bounds the
 * run still does), and every fault fires and lasts `factor` times as long. A rate shape stretches
 * with the axis at the same rates (stage durations, the diurnal period and peak). What is not on
 * the scenario's axis stays as it is: a bus fault's delay is a property of the link, and the
 * cluster's own timers (heartbeat timeouts, restart backoff) do not shrink, so a short run is a
 * smoke test of the same timeline, not the same experiment.
 */

export function scaleWorkloadSpec(spec: WorkloadSpec, factor: number): WorkloadSpec {
  assertFactor(factor);
  return {
    ...spec,
    ...(spec.num_requests === undefined ? {} : { num_requests: Math.max(1, Math.round(spec.num_requests * factor)) }),
    ...(spec.horizon === undefined ? {} : { horizon: spec.horizon * factor }),
    ...(spec.stages === undefined ? {} : { stages: spec.stages.map((s) => ({ ...s, duration: s.duration * factor })) }),
    ...(spec.diurnal === undefined ? {} : { diurnal: scaleDiurnal(spec.diurnal, factor) }),
  };
}

function scaleDiurnal(diurnal: Diurnal, factor: number): Diurnal {
  return { ...diurnal, period: diurnal.period * factor, ...(diurnal.peak_at === undefined ? {} : { peak_at: diurnal.peak_at * factor }) };
}

export function scaleFaults(faults: readonly Fault[], factor: number): Fault[] {
  assertFactor(factor);
  return faults.map((fault) => {
    const scaled = { ...fault, atMs: Math.round(fault.atMs * factor) };
    // A fault that is undone stays a fault that is undone: at least 1 ms.
    if ('forMs' in fault && fault.forMs !== undefined) return { ...scaled, forMs: Math.max(1, Math.round(fault.forMs * factor)) } as Fault;
    return scaled;
  });
}

function assertFactor(factor: number): void {
  if (!(Number.isFinite(factor) && factor > 0)) throw new RangeError(`scale factor must be a number > 0, got ${factor}`);
}
