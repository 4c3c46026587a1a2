import { describe, expect, it } from 'vitest';
import { generateWorkloadRequests, type WorkloadRequest } from './generate.js';
import { rateShapeOf } from './rate-shape/workload-rate-shape.js';
import { validateWorkloadSpec, type WorkloadSpec, type WorkloadSpecInput } from './spec.js';
import { exportTraceV2, importTraceV2 } from './trace-v2.js';

/**
 * Generation under a rate shape (rate-shape/rate-shape.ts): the stationary workload's draws, each
 * sent at its operational time's image; the offered rate per window follows the shape.
 */

type ClientInput = WorkloadSpecInput['clients'][number];

const client = (id: string, arrival: ClientInput['arrival'], overrides: Partial<ClientInput> = {}): ClientInput => ({
  id,
  tenant_id: `t-${id}`,
  slo_class: 'standard',
  rate_fraction: 1,
  arrival,
  input_distribution: { type: 'gaussian', params: { mean: 64, std_dev: 16, min: 8, max: 128 } },
  output_distribution: { type: 'exponential', params: { mean: 32 } },
  ...overrides,
});

const PROCESSES: readonly ClientInput['arrival'][] = [{ process: 'poisson' }, { process: 'gamma', cv: 2 }, { process: 'weibull', cv: 0.5 }, { process: 'constant' }];
const MIXED_CLIENTS = PROCESSES.map((arrival, i) => client(`c${i}`, arrival, i === 0 ? { prefix_group: 'g', prefix_length: 8 } : {}));

const STEP_STAGES = [
  { rate: 8, duration: 30 },
  { rate: 32, duration: 20 },
  { rate: 0, duration: 10 },
  { rate: 8, duration: 40 },
];

function spec(input: Omit<WorkloadSpecInput, 'seed' | 'clients'> & Partial<Pick<WorkloadSpecInput, 'seed' | 'clients'>>): WorkloadSpec {
  return validateWorkloadSpec({ seed: 11, clients: MIXED_CLIENTS, ...input });
}

/** A request without its arrival time: what the draws decide. */
const drawsOf = ({ arrivalMs: _, ...rest }: WorkloadRequest) => rest;

/** Requests arriving in [fromMs, toMs). */
const countIn = (requests: readonly WorkloadRequest[], fromMs: number, toMs: number) => requests.filter((r) => r.arrivalMs >= fromMs && r.arrivalMs < toMs).length;

describe('generateWorkload with a rate shape: the stationary draws, moved in time', () => {
  it.each([
    ['stages', { stages: STEP_STAGES }],
    ['diurnal', { aggregate_rate: 15, horizon: 100, diurnal: { period: 40, peak_to_trough_ratio: 5, peak_at: 10 } }],
  ] as const)('%s: every process makes the same draws, in the same order, each at Λ⁻¹ of its stationary time', (_, shaped) => {
    const shapedSpec = spec(shaped);
    const shape = rateShapeOf(shapedSpec)!;
    const requests = generateWorkloadRequests(shapedSpec);
    // The stationary workload at the shape's mean rate, with no horizon, as many requests.
    const stationary = generateWorkloadRequests(spec({ aggregate_rate: shape.meanRate, num_requests: requests.length + 1 }));
    expect(requests.length).toBeGreaterThan(1_000);
    expect(new Set(requests.map((r) => r.clientId)).size).toBe(4);
    expect(requests.map(drawsOf)).toEqual(stationary.slice(0, requests.length).map(drawsOf));
    expect(requests.map((r) => r.arrivalMs)).toEqual(stationary.slice(0, requests.length).map((r) => shape.workloadMs(r.arrivalMs)));
    // It stops at the first stationary arrival whose image is at or past the horizon.
    expect(shape.workloadMs(stationary.at(-1)!.arrivalMs)).toBeGreaterThanOrEqual(shapedSpec.horizon! * 1000);
  });

  it('gives the same arrivals for the same seed, and others for another', () => {
    const once = JSON.stringify(generateWorkloadRequests(spec({ stages: STEP_STAGES })));
    expect(JSON.stringify(generateWorkloadRequests(spec({ stages: STEP_STAGES })))).toBe(once);
    expect(JSON.stringify(generateWorkloadRequests(spec({ stages: STEP_STAGES, seed: 12 })))).not.toBe(once);
  });

  it('changes nothing at a peak-to-trough ratio of 1: byte for byte the constant workload', () => {
    const flat = generateWorkloadRequests(spec({ aggregate_rate: 20, num_requests: 2_000, diurnal: { period: 30, peak_to_trough_ratio: 1 } }));
    expect(JSON.stringify(flat)).toBe(JSON.stringify(generateWorkloadRequests(spec({ aggregate_rate: 20, num_requests: 2_000 }))));
  });

  it('ends a stages workload with its last stage, or earlier at a horizon set shorter', () => {
    const all = generateWorkloadRequests(spec({ stages: STEP_STAGES }));
    expect(all.at(-1)!.arrivalMs).toBeLessThan(100_000);
    expect(all.at(-1)!.arrivalMs).toBeGreaterThan(99_000);
    const short = generateWorkloadRequests(spec({ stages: STEP_STAGES, horizon: 45 }));
    expect(short).toEqual(all.filter((r) => r.arrivalMs < 45_000));
    expect(generateWorkloadRequests(spec({ stages: STEP_STAGES, num_requests: 10 }))).toEqual(all.slice(0, 10));
  });
});

describe('generateWorkload with a rate shape: the offered rate follows it', () => {
  const poisson = [client('p', { process: 'poisson' })];

  it('stages: each stage offers rate × duration within Poisson noise, the pause nothing', () => {
    const stages = [
      { rate: 20, duration: 300 },
      { rate: 80, duration: 200 },
      { rate: 0, duration: 100 },
      { rate: 20, duration: 300 },
    ];
    const requests = generateWorkloadRequests(spec({ clients: poisson, stages }));
    let startMs = 0;
    for (const { rate, duration } of stages) {
      const expected = rate * duration;
      const n = countIn(requests, startMs, startMs + duration * 1000);
      if (expected === 0) expect(n).toBe(0);
      else expect(Math.abs(n - expected), `${n} arrivals in a stage of ${expected}`).toBeLessThan(4 * Math.sqrt(expected));
      startMs += duration * 1000;
    }
    // 10 s windows straddling the step: the rate changes at the boundary, not around it.
    const before = countIn(requests, 290_000, 300_000);
    const after = countIn(requests, 300_000, 310_000);
    expect(Math.abs(before - 200)).toBeLessThan(4 * Math.sqrt(200));
    expect(Math.abs(after - 800)).toBeLessThan(4 * Math.sqrt(800));
  });

  it('stages: a constant process is evenly spaced within each stage, at 1/rate, up to the boundary', () => {
    const stages = [
      { rate: 10, duration: 10 },
      { rate: 40, duration: 5 },
      { rate: 0, duration: 5 },
      { rate: 10, duration: 10 },
    ];
    const requests = generateWorkloadRequests(spec({ clients: [client('c', { process: 'constant' })], stages }));
    const within = (from: number, to: number) => requests.filter((r) => r.arrivalMs >= from && r.arrivalMs < to).map((r) => r.arrivalMs);
    const gapsOf = (xs: number[]) => xs.slice(1).map((x, i) => x - xs[i]!);
    for (const [from, to, gap] of [
      [0, 10_000, 100],
      [10_000, 15_000, 25],
      [20_000, 30_000, 100],
    ] as const) {
      const times = within(from, to);
      expect(times.length).toBeGreaterThanOrEqual(((to - from) / gap) - 1);
      for (const g of gapsOf(times)) expect(g).toBeCloseTo(gap, 6);
    }
    expect(within(15_000, 20_000)).toEqual([]);
    expect(requests.every((r) => r.arrivalMs < 30_000)).toBe(true);
  });

  it('diurnal: each window offers ∫ rate over it within Poisson noise, peaks r times the troughs', () => {
    const d = spec({ clients: poisson, aggregate_rate: 50, horizon: 1_200, diurnal: { period: 120, peak_to_trough_ratio: 4, peak_at: 60 } });
    const shape = rateShapeOf(d)!;
    const requests = generateWorkloadRequests(d);
    expect(Math.abs(requests.length - 60_000)).toBeLessThan(4 * Math.sqrt(60_000));
    const windowMs = 5_000;
    const counts: number[] = [];
    for (let t = 0; t < 1_200_000; t += windowMs) {
      const expected = ((shape.operationalMs(t + windowMs) - shape.operationalMs(t)) * 50) / 1000;
      const n = countIn(requests, t, t + windowMs);
      expect(Math.abs(n - expected), `${n} arrivals in [${t}, ${t + windowMs}) ms, expected ${expected}`).toBeLessThan(4.5 * Math.sqrt(expected));
      counts.push(n);
    }
    // Folded over the ten cycles: the windows at the peak against those at the trough.
    const perPhase = Array.from({ length: 24 }, (_, i) => counts.filter((_, w) => w % 24 === i).reduce((a, b) => a + b, 0));
    const peak = perPhase[11]! + perPhase[12]!;
    const trough = perPhase[23]! + perPhase[0]!;
    expect(peak / trough).toBeGreaterThan(3.3);
    expect(peak / trough).toBeLessThan(4.3);
  });

  it('gamma and Weibull follow the shape as Poisson does, with their own burstiness', () => {
    for (const arrival of [{ process: 'gamma', cv: 2 }, { process: 'weibull', cv: 0.5 }] as const) {
      const requests = generateWorkloadRequests(spec({ clients: [client('x', arrival)], stages: [{ rate: 10, duration: 400 }, { rate: 50, duration: 200 }] }));
      // A renewal process's count over a long window has variance ≈ cv² · mean.
      for (const [from, to, expected] of [
        [0, 400_000, 4_000],
        [400_000, 600_000, 10_000],
      ] as const) {
        expect(Math.abs(countIn(requests, from, to) - expected)).toBeLessThan(4 * arrival.cv * Math.sqrt(expected));
      }
    }
  });
});

describe('a shaped workload as a TraceV2 trace', () => {
  it('carries the shaped arrival times, to the µs, and imports back to them', () => {
    const requests = generateWorkloadRequests(spec({ stages: STEP_STAGES }));
    const trace = exportTraceV2(requests);
    const rows = trace.csv.trim().split('\n').slice(1);
    expect(rows).toHaveLength(requests.length);
    const imported = importTraceV2(trace.header, trace.csv);
    expect(imported.requests.map((r) => r.arrivalMs)).toEqual(requests.map((r) => Math.round(r.arrivalMs * 1000) / 1000));
    // The step is in the trace: 32/s in the second stage, nothing in the pause.
    expect(Math.abs(countIn(imported.requests, 30_000, 50_000) - 640)).toBeLessThan(4 * Math.sqrt(640));
    expect(countIn(imported.requests, 50_000, 60_000)).toBe(0);
  });
});
