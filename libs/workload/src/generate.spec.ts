import { describe, expect, it } from 'vitest';
import { generateWorkload, generateWorkloadRequests, type WorkloadRequest } from './generate.js';
import { TOKEN_VOCAB_SIZE } from './token-ids.js';
import { validateWorkloadSpec, type WorkloadSpec, type WorkloadSpecInput } from './spec.js';

type ClientInput = WorkloadSpecInput['clients'][number];

function client(overrides: Partial<ClientInput> = {}): ClientInput {
  return {
    id: 'c0',
    tenant_id: 't0',
    slo_class: 'standard',
    rate_fraction: 1,
    arrival: { process: 'poisson' },
    input_distribution: { type: 'constant', params: { value: 4 } },
    output_distribution: { type: 'constant', params: { value: 8 } },
    ...overrides,
  };
}

function spec(overrides: Partial<WorkloadSpecInput> = {}): WorkloadSpec {
  return validateWorkloadSpec({ seed: 1, aggregate_rate: 20, num_requests: 10_000, clients: [client()], ...overrides });
}

function stats(xs: number[]): { mean: number; std: number; cv: number } {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const std = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1));
  return { mean, std, cv: std / mean };
}

function gaps(requests: WorkloadRequest[]): number[] {
  return requests.slice(1).map((r, i) => r.arrivalMs - requests[i]!.arrivalMs);
}

function expectWithin(actual: number, expected: number, relative: number): void {
  expect(Math.abs(actual - expected) / expected, `${actual} vs ${expected}`).toBeLessThanOrEqual(relative);
}

const MIXED = spec({
  seed: 123,
  aggregate_rate: 50,
  num_requests: 1_000,
  clients: [
    client({ id: 'a', prefix_group: 'g', prefix_length: 16, input_distribution: { type: 'gaussian', params: { mean: 100, std_dev: 30, min: 10, max: 200 } } }),
    client({ id: 'b', arrival: { process: 'gamma', cv: 3 }, output_distribution: { type: 'lognormal', params: { mu: 4, sigma: 1 } } }),
    client({ id: 'c', arrival: { process: 'weibull', cv: 0.5 }, output_distribution: { type: 'empirical', params: { values: [1, 2, 3] } } }),
    client({ id: 'd', arrival: { process: 'constant' }, input_distribution: { type: 'exponential', params: { mean: 50 } } }),
  ],
});

describe('generateWorkload: determinism', () => {
  it('gives identical requests for the same seed, and different ones for another', () => {
    const first = JSON.stringify(generateWorkloadRequests(MIXED));
    expect(JSON.stringify(generateWorkloadRequests(MIXED))).toBe(first);
    expect(JSON.parse(first)).toHaveLength(1_000);
    expect(JSON.stringify(generateWorkloadRequests({ ...MIXED, seed: 124 }))).not.toBe(first);
    expect(JSON.stringify(generateWorkloadRequests(MIXED, { seed: 124 }))).not.toBe(first);
  });

  it('is lazy, and its prefix equals the array helper', () => {
    const iterator = generateWorkload(spec({ num_requests: 1_000_000_000 }));
    const firstFive: WorkloadRequest[] = [];
    for (const request of iterator) {
      firstFive.push(request);
      if (firstFive.length === 5) break;
    }
    expect(firstFive).toEqual(generateWorkloadRequests(spec({ num_requests: 5 })));
  });

  it('yields requests in arrival order with consecutive indices and valid tokens', () => {
    const requests = generateWorkloadRequests(MIXED);
    requests.forEach((r, i) => {
      expect(r.index).toBe(i);
      if (i > 0) expect(r.arrivalMs).toBeGreaterThanOrEqual(requests[i - 1]!.arrivalMs);
      expect(r.maxTokens).toBeGreaterThanOrEqual(1);
      expect(r.inputTokens.length).toBeGreaterThanOrEqual(1);
      for (const t of r.inputTokens) expect(Number.isInteger(t) && t >= 0 && t < TOKEN_VOCAB_SIZE).toBe(true);
    });
    expect(new Set(requests.map((r) => r.clientId))).toEqual(new Set(['a', 'b', 'c', 'd']));
  });
});

describe('generateWorkload: distributions (n = 10,000)', () => {
  it('poisson inter-arrival mean is 1/rate within 3%, cv ≈ 1', () => {
    const { mean, cv } = stats(gaps(generateWorkloadRequests(spec({ aggregate_rate: 20 }))));
    expectWithin(mean, 50, 0.03);
    expectWithin(cv, 1, 0.05);
  });

  it.each([0.5, 2])('gamma cv %s is reproduced within 5%%', (cv) => {
    const s = stats(gaps(generateWorkloadRequests(spec({ clients: [client({ arrival: { process: 'gamma', cv } })] }))));
    expectWithin(s.mean, 50, cv > 1 ? 0.06 : 0.03);
    expectWithin(s.cv, cv, 0.05);
  });

  it.each([0.5, 2])('weibull cv %s is reproduced within 5%%', (cv) => {
    const s = stats(gaps(generateWorkloadRequests(spec({ clients: [client({ arrival: { process: 'weibull', cv } })] }))));
    expectWithin(s.mean, 50, cv > 1 ? 0.06 : 0.03);
    expectWithin(s.cv, cv, 0.05);
  });

  it('constant arrivals are evenly spaced', () => {
    const requests = generateWorkloadRequests(spec({ num_requests: 100, clients: [client({ arrival: { process: 'constant' } })] }));
    for (const gap of gaps(requests)) expect(gap).toBeCloseTo(50, 9);
  });

  it('gaussian lengths have the requested mean and std, all within [min, max]', () => {
    const requests = generateWorkloadRequests(
      spec({
        clients: [
          client({
            input_distribution: { type: 'gaussian', params: { mean: 500, std_dev: 100, min: 100, max: 900 } },
            output_distribution: { type: 'gaussian', params: { mean: 100, std_dev: 50, min: 60, max: 140 } },
          }),
        ],
      }),
    );
    const inputs = requests.map((r) => r.inputTokens.length);
    const s = stats(inputs);
    expectWithin(s.mean, 500, 0.01);
    expectWithin(s.std, 100, 0.03);
    const outputs = requests.map((r) => r.maxTokens);
    expect(Math.min(...outputs)).toBe(60);
    expect(Math.max(...outputs)).toBe(140);
    expect(Math.min(...inputs)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...inputs)).toBeLessThanOrEqual(900);
  });

  it('exponential, lognormal, constant and empirical lengths', () => {
    const requests = generateWorkloadRequests(
      spec({
        clients: [
          client({ id: 'e', input_distribution: { type: 'exponential', params: { mean: 200 } }, output_distribution: { type: 'lognormal', params: { mu: 5, sigma: 0.5 } } }),
          client({ id: 'k', input_distribution: { type: 'constant', params: { value: 7 } }, output_distribution: { type: 'empirical', params: { values: [10, 20, 30], weights: [1, 0, 3] } } }),
        ],
      }),
    );
    const e = requests.filter((r) => r.clientId === 'e');
    const k = requests.filter((r) => r.clientId === 'k');
    expectWithin(stats(e.map((r) => r.inputTokens.length)).mean, 200, 0.05);
    const logs = stats(e.map((r) => Math.log(r.maxTokens)));
    expectWithin(logs.mean, 5, 0.02);
    expectWithin(logs.std, 0.5, 0.05);
    expect(new Set(k.map((r) => r.inputTokens.length))).toEqual(new Set([7]));
    const counts = new Map<number, number>();
    for (const r of k) counts.set(r.maxTokens, (counts.get(r.maxTokens) ?? 0) + 1);
    expect(counts.get(20)).toBeUndefined();
    expectWithin(counts.get(30)! / k.length, 0.75, 0.04);
  });

  it('rate fractions become shares of the requests, normalized over clients', () => {
    const requests = generateWorkloadRequests(
      spec({ clients: [client({ id: 'x', rate_fraction: 6 }), client({ id: 'y', rate_fraction: 3, arrival: { process: 'gamma', cv: 1.5 } }), client({ id: 'z', rate_fraction: 1 })] }),
    );
    const share = (id: string) => requests.filter((r) => r.clientId === id).length / requests.length;
    expect(share('x')).toBeCloseTo(0.6, 1);
    expect(Math.abs(share('x') - 0.6)).toBeLessThan(0.02);
    expect(Math.abs(share('y') - 0.3)).toBeLessThan(0.02);
    expect(Math.abs(share('z') - 0.1)).toBeLessThan(0.015);
    expectWithin(stats(gaps(requests)).mean, 50, 0.05);
  });
});

describe('generateWorkload: prefix groups', () => {
  it('requests of a group share exactly prefix_length leading tokens and differ after', () => {
    const requests = generateWorkloadRequests(
      spec({
        num_requests: 300,
        clients: [
          client({ id: 'a', prefix_group: 'sys', prefix_length: 32, input_distribution: { type: 'constant', params: { value: 20 } } }),
          client({ id: 'b', prefix_group: 'sys', prefix_length: 32, input_distribution: { type: 'constant', params: { value: 20 } } }),
          client({ id: 'c', prefix_group: 'other', prefix_length: 32, input_distribution: { type: 'constant', params: { value: 20 } } }),
          client({ id: 'n', input_distribution: { type: 'constant', params: { value: 20 } } }),
        ],
      }),
    );
    const group = requests.filter((r) => r.clientId === 'a' || r.clientId === 'b');
    const other = requests.filter((r) => r.clientId === 'c');
    const plain = requests.filter((r) => r.clientId === 'n');
    const prefix = group[0]!.inputTokens.slice(0, 32);
    for (const r of group) {
      expect(r.inputTokens).toHaveLength(52);
      expect(r.inputTokens.slice(0, 32)).toEqual(prefix);
    }
    // The suffixes are the requests' own: all distinct.
    expect(new Set(group.map((r) => r.inputTokens.slice(32).join(','))).size).toBe(group.length);
    // Token 32 differs across the group (a shared prefix of exactly 32, not more).
    expect(new Set(group.map((r) => r.inputTokens[32])).size).toBeGreaterThan(1);
    expect(other[0]!.inputTokens.slice(0, 32)).not.toEqual(prefix);
    for (const r of other) expect(r.inputTokens.slice(0, 32)).toEqual(other[0]!.inputTokens.slice(0, 32));
    for (const r of plain) expect(r.inputTokens).toHaveLength(20);
  });
});

describe('generateWorkload: limits', () => {
  it('stops at num_requests', () => {
    expect(generateWorkloadRequests(spec({ num_requests: 37, horizon: 1000 }))).toHaveLength(37);
  });

  it('stops at the horizon', () => {
    const requests = generateWorkloadRequests(spec({ num_requests: undefined, horizon: 100, aggregate_rate: 20 }));
    expect(requests.every((r) => r.arrivalMs < 100_000)).toBe(true);
    expect(Math.abs(requests.length - 2000)).toBeLessThan(200);
    const constant = generateWorkloadRequests(spec({ num_requests: undefined, horizon: 1, aggregate_rate: 10, clients: [client({ arrival: { process: 'constant' } })] }));
    expect(constant.map((r) => r.arrivalMs)).toHaveLength(9);
  });

  it('stops at whichever comes first', () => {
    expect(generateWorkloadRequests(spec({ num_requests: 5_000, horizon: 10, aggregate_rate: 20 })).length).toBeLessThan(400);
  });
});
