import { describe, expect, it } from 'vitest';
import { issuePath } from '@sluice/contracts';
import { parseWorkloadSpec, validateWorkloadSpec, WorkloadError, type WorkloadIssue } from './spec.js';

const VALID = `
version: "2"
seed: 42
aggregate_rate: 10
num_requests: 100
horizon: 60
clients:
  - id: chat
    tenant_id: acme
    slo_class: critical
    rate_fraction: 0.7
    arrival: { process: poisson }
    input_distribution: { type: gaussian, params: { mean: 512, std_dev: 128, min: 16, max: 2048 } }
    output_distribution: { type: exponential, params: { mean: 256 } }
    prefix_group: system-a
    prefix_length: 64
  - id: batch
    tenant_id: beta
    slo_class: batch
    rate_fraction: 0.3
    arrival: { process: gamma, cv: 2 }
    input_distribution: { type: lognormal, params: { mu: 6, sigma: 0.5 } }
    output_distribution: { type: empirical, params: { values: [64, 128, 512], weights: [1, 2, 1] } }
`;

function issuesOf(run: () => unknown): WorkloadIssue[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WorkloadError);
    return [...(error as WorkloadError).issues];
  }
  throw new Error('expected a WorkloadError');
}

/** VALID with `edit` applied to the parsed object. */
function edited(edit: (spec: any) => void): unknown {
  const spec = structuredClone(parseWorkloadSpec(VALID)) as any;
  edit(spec);
  return spec;
}

describe('parseWorkloadSpec', () => {
  it('accepts a BLIS-style v2 spec', () => {
    const spec = parseWorkloadSpec(VALID);
    expect(spec.clients).toHaveLength(2);
    expect(spec.clients[1]!.arrival).toEqual({ process: 'gamma', cv: 2 });
    expect(spec.clients[0]!.prefix_length).toBe(64);
  });

  it('names the key path of an unknown key', () => {
    const issues = issuesOf(() => validateWorkloadSpec(edited((s) => (s.clients[1].arrival.burst = 3))));
    expect(issues).toEqual([{ path: 'clients[1].arrival.burst', message: 'unknown key' }]);
    expect(issuesOf(() => validateWorkloadSpec(edited((s) => (s.rate = 1))))).toEqual([{ path: 'rate', message: 'unknown key' }]);
  });

  it('names the key path of a negative rate', () => {
    expect(issuesOf(() => validateWorkloadSpec(edited((s) => (s.aggregate_rate = -5))))).toEqual([{ path: 'aggregate_rate', message: 'must be > 0' }]);
    expect(issuesOf(() => validateWorkloadSpec(edited((s) => (s.clients[0].rate_fraction = -0.1))))).toEqual([
      { path: 'clients[0].rate_fraction', message: 'must be > 0' },
    ]);
  });

  it('names the key path of a missing or unknown arrival process', () => {
    const missing = issuesOf(() => validateWorkloadSpec(edited((s) => delete s.clients[1].arrival.process)));
    expect(missing).toHaveLength(1);
    expect(missing[0]!.path).toBe('clients[1].arrival.process');
    expect(missing[0]!.message).toMatch(/^is required/);
    const unknown = issuesOf(() => validateWorkloadSpec(edited((s) => (s.clients[0].arrival = { process: 'pareto' }))));
    expect(unknown).toEqual([{ path: 'clients[0].arrival.process', message: 'must be one of poisson | gamma | weibull | constant' }]);
  });

  it('names the key path of a cv <= 0 or a missing cv', () => {
    expect(issuesOf(() => validateWorkloadSpec(edited((s) => (s.clients[1].arrival.cv = 0))))).toEqual([{ path: 'clients[1].arrival.cv', message: 'must be > 0' }]);
    expect(issuesOf(() => validateWorkloadSpec(edited((s) => (s.clients[1].arrival = { process: 'weibull', cv: -1 }))))).toEqual([
      { path: 'clients[1].arrival.cv', message: 'must be > 0' },
    ]);
    expect(issuesOf(() => validateWorkloadSpec(edited((s) => delete s.clients[1].arrival.cv)))).toEqual([{ path: 'clients[1].arrival.cv', message: 'is required' }]);
  });

  it('reports every problem at once, in the error message too', () => {
    const spec = edited((s) => {
      s.aggregate_rate = 0;
      s.clients[0].slo_class = 'gold';
      s.clients[0].input_distribution.params.max = 8;
      s.clients[1].output_distribution.params.weights = [1];
    });
    const issues = issuesOf(() => validateWorkloadSpec(spec));
    expect(issues.map((i) => i.path).sort()).toEqual(
      ['aggregate_rate', 'clients[0].input_distribution.params.max', 'clients[0].slo_class', 'clients[1].output_distribution.params.weights'].sort(),
    );
    expect(() => validateWorkloadSpec(spec)).toThrow(/clients\[0\]\.slo_class: must be one of critical \| standard/);
  });

  it('requires num_requests or horizon, and consistent prefix groups', () => {
    expect(issuesOf(() => validateWorkloadSpec(edited((s) => (delete s.num_requests, delete s.horizon))))).toEqual([
      { path: 'num_requests', message: 'num_requests or horizon is required' },
    ]);
    expect(
      issuesOf(() =>
        validateWorkloadSpec(
          edited((s) => {
            s.clients[1].prefix_group = 'system-a';
            s.clients[1].prefix_length = 32;
          }),
        ),
      ),
    ).toEqual([{ path: 'clients[1].prefix_length', message: "must equal 64, the length of prefix_group 'system-a'" }]);
    expect(issuesOf(() => validateWorkloadSpec(edited((s) => delete s.clients[0].prefix_length)))).toEqual([
      { path: 'clients[0].prefix_length', message: 'is required with prefix_group' },
    ]);
    expect(issuesOf(() => validateWorkloadSpec(edited((s) => (s.clients[1].id = 'chat'))))).toEqual([
      { path: 'clients[1].id', message: "duplicate client id 'chat'" },
    ]);
  });

  it('reports missing keys and bad YAML', () => {
    expect(issuesOf(() => validateWorkloadSpec(edited((s) => delete s.clients[0].input_distribution)))).toEqual([
      { path: 'clients[0].input_distribution', message: 'is required' },
    ]);
    expect(issuesOf(() => validateWorkloadSpec(edited((s) => (s.seed = 'x'))))).toEqual([{ path: 'seed', message: 'must be a number' }]);
    expect(issuesOf(() => parseWorkloadSpec('seed: [1'))[0]!.message).toMatch(/^not valid YAML/);
    expect(issuesOf(() => parseWorkloadSpec(''))).toEqual([{ path: '', message: 'must be an object' }]);
  });

  it('formats paths as the rest of sluice does (issuePath from contracts)', () => {
    expect(issuePath(['clients', 1, 'arrival', 'cv'])).toBe('clients[1].arrival.cv');
    expect(issuePath([])).toBe('');
  });
});

describe('rate shapes in a spec', () => {
  const STAGES = [
    { rate: 4, duration: 30 },
    { rate: 16, duration: 60 },
    { rate: 4, duration: 30 },
  ];
  /** VALID without num_requests, horizon and aggregate_rate, with `shape` added. */
  const shaped = (shape: Record<string, unknown>) =>
    edited((s) => {
      delete s.num_requests;
      delete s.horizon;
      delete s.aggregate_rate;
      Object.assign(s, shape);
    });

  it('leaves a spec without a shape as it was read, key for key', () => {
    const spec = parseWorkloadSpec(VALID);
    expect(Object.keys(spec)).toEqual(['version', 'seed', 'aggregate_rate', 'num_requests', 'horizon', 'clients']);
    expect(validateWorkloadSpec(structuredClone(spec))).toEqual(spec);
  });

  it('takes stages without aggregate_rate or horizon, and says what they imply: their mean and their end', () => {
    const spec = validateWorkloadSpec(shaped({ stages: STAGES }));
    expect(spec.aggregate_rate).toBe((4 * 30 + 16 * 60 + 4 * 30) / 120);
    expect(spec.horizon).toBe(120);
    // Read back (a report's workload.spec), the filled-in values agree with the stages.
    expect(validateWorkloadSpec(structuredClone(spec))).toEqual(spec);
    expect(validateWorkloadSpec(shaped({ stages: STAGES, horizon: 90, num_requests: 5 }))).toMatchObject({ horizon: 90, num_requests: 5 });
  });

  it('refuses what contradicts the stages, naming the key', () => {
    expect(validateWorkloadSpec(shaped({ stages: STAGES, aggregate_rate: 10 })).aggregate_rate).toBe(10);
    expect(issuesOf(() => validateWorkloadSpec(shaped({ stages: STAGES, aggregate_rate: 12 })))).toEqual([
      { path: 'aggregate_rate', message: 'must be absent with stages (each stage gives its rate), or equal their time-weighted mean 10' },
    ]);
    expect(issuesOf(() => validateWorkloadSpec(shaped({ stages: STAGES, horizon: 121 })))).toEqual([
      { path: 'horizon', message: "must be <= 120, the stages' total duration (no rate is given past the last stage)" },
    ]);
    expect(issuesOf(() => validateWorkloadSpec(shaped({ stages: [{ rate: 0, duration: 10 }] })))).toEqual([{ path: 'stages', message: 'must have a stage with rate > 0' }]);
    expect(issuesOf(() => validateWorkloadSpec(shaped({ stages: [] })))).toEqual([{ path: 'stages', message: 'must not be empty' }]);
    expect(issuesOf(() => validateWorkloadSpec(shaped({ stages: [{ rate: -1, duration: 10 }, { rate: 5, duration: 0 }, { rate: 5, duration: 1, ramp: true }] })))).toEqual([
      { path: 'stages[0].rate', message: 'must be >= 0' },
      { path: 'stages[1].duration', message: 'must be > 0' },
      { path: 'stages[2].ramp', message: 'unknown key' },
    ]);
  });

  it('takes a diurnal cycle around aggregate_rate, and refuses one with stages', () => {
    const spec = validateWorkloadSpec(shaped({ aggregate_rate: 10, horizon: 240, diurnal: { period: 120, peak_to_trough_ratio: 4, peak_at: 90 } }));
    expect(spec.diurnal).toEqual({ period: 120, peak_to_trough_ratio: 4, peak_at: 90 });
    expect(spec.aggregate_rate).toBe(10);
    expect(issuesOf(() => validateWorkloadSpec(shaped({ stages: STAGES, diurnal: { period: 120, peak_to_trough_ratio: 4 } })))).toEqual([
      { path: 'diurnal', message: 'cannot be set with stages: a workload has one rate shape' },
    ]);
    // Without stages, the rate and a bound are required as ever.
    expect(issuesOf(() => validateWorkloadSpec(shaped({ diurnal: { period: 120, peak_to_trough_ratio: 4 } })))).toEqual([
      { path: 'aggregate_rate', message: 'is required (without stages)' },
      { path: 'num_requests', message: 'num_requests or horizon is required' },
    ]);
  });

  it('names the key of a diurnal field out of range', () => {
    const diurnal = (d: Record<string, unknown>) => issuesOf(() => validateWorkloadSpec(shaped({ aggregate_rate: 5, horizon: 60, diurnal: d })));
    expect(diurnal({ period: 0, peak_to_trough_ratio: 2 })).toEqual([{ path: 'diurnal.period', message: 'must be > 0' }]);
    expect(diurnal({ period: 60, peak_to_trough_ratio: 0.5 })).toEqual([{ path: 'diurnal.peak_to_trough_ratio', message: 'must be >= 1' }]);
    expect(diurnal({ period: 60, peak_to_trough_ratio: 2, peak_at: 60 })).toEqual([{ path: 'diurnal.peak_at', message: 'must be < period' }]);
    expect(diurnal({ period: 60, peak_to_trough_ratio: 2, peak_hour: 12 })).toEqual([{ path: 'diurnal.peak_hour', message: 'unknown key' }]);
  });
});
