import { describe, expect, it } from 'vitest';
import type { WorkloadSpec } from '../spec.js';
import { scaleFaults, scaleWorkloadSpec } from './scale.js';
import type { Fault } from './scenario.js';

const SPEC: WorkloadSpec = {
  seed: 1,
  aggregate_rate: 20,
  num_requests: 500,
  horizon: 25,
  clients: [
    {
      id: 'a',
      tenant_id: 't',
      slo_class: 'standard',
      rate_fraction: 1,
      arrival: { process: 'poisson' },
      input_distribution: { type: 'constant', params: { value: 32 } },
      output_distribution: { type: 'constant', params: { value: 8 } },
    },
  ],
};

describe('scaling a chaos scenario', () => {
  it('keeps the rate and scales the count and the horizon', () => {
    const short = scaleWorkloadSpec(SPEC, 0.2);
    expect(short).toEqual({ ...SPEC, num_requests: 100, horizon: 5 });
    expect(scaleWorkloadSpec({ ...SPEC, num_requests: 2 }, 0.1).num_requests).toBe(1);
    const { horizon: _, ...countOnly } = SPEC;
    expect(scaleWorkloadSpec(countOnly, 0.5)).toEqual({ ...countOnly, num_requests: 250 });
  });

  it('stretches a rate shape with the axis, at the same rates', () => {
    const stages = { ...SPEC, aggregate_rate: 15, horizon: 30, stages: [{ rate: 10, duration: 20 }, { rate: 25, duration: 10 }] };
    expect(scaleWorkloadSpec(stages, 0.5)).toEqual({ ...stages, num_requests: 250, horizon: 15, stages: [{ rate: 10, duration: 10 }, { rate: 25, duration: 5 }] });
    const diurnal = { ...SPEC, diurnal: { period: 120, peak_to_trough_ratio: 4, peak_at: 60 } };
    expect(scaleWorkloadSpec(diurnal, 0.25).diurnal).toEqual({ period: 30, peak_to_trough_ratio: 4, peak_at: 15 });
    expect(scaleWorkloadSpec({ ...SPEC, diurnal: { period: 120, peak_to_trough_ratio: 4 } }, 2).diurnal).toEqual({ period: 240, peak_to_trough_ratio: 4 });
  });

  it('moves every fault and shortens what is undone, never to 0 ms; a delay on the bus stays', () => {
    const faults: Fault[] = [
      { atMs: 8000, action: 'kill', target: 'worker-1' },
      { atMs: 5000, action: 'pause', target: 'router', forMs: 3 },
      { atMs: 4000, action: 'bus-faults', subject: 'sluice.v1.router.submit', delayMs: 200, jitterMs: 50, dropPercent: 5, duplicatePercent: 0, forMs: 10_000 },
    ];
    expect(scaleFaults(faults, 0.2)).toEqual([
      { atMs: 1600, action: 'kill', target: 'worker-1' },
      { atMs: 1000, action: 'pause', target: 'router', forMs: 1 },
      { atMs: 800, action: 'bus-faults', subject: 'sluice.v1.router.submit', delayMs: 200, jitterMs: 50, dropPercent: 5, duplicatePercent: 0, forMs: 2000 },
    ]);
  });

  it('refuses a factor that is not > 0', () => {
    expect(() => scaleFaults([], 0)).toThrow(/> 0/);
    expect(() => scaleWorkloadSpec(SPEC, Number.NaN)).toThrow(/> 0/);
  });
});
