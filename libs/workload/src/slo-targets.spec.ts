import { describe, expect, it } from 'vitest';
import { httpHeaders } from '@sluice/contracts';
import { generateWorkloadRequests } from './generate.js';
import { decimalMs, schedulingHeadersOf } from './request-headers.js';
import { WorkloadError, validateWorkloadSpec, type WorkloadSpecInput } from './spec.js';

const client = (id: string, sloClass: 'critical' | 'standard' | 'batch', extra: object = {}) => ({
  id,
  tenant_id: 't',
  slo_class: sloClass,
  rate_fraction: 1,
  arrival: { process: 'constant' },
  input_distribution: { type: 'constant', params: { value: 32 } },
  output_distribution: { type: 'constant', params: { value: 4 } },
  ...extra,
});

const spec = (extra: object): WorkloadSpecInput => ({ seed: 1, aggregate_rate: 30, num_requests: 30, clients: [], ...extra });

function pathsOf(input: unknown): string[] {
  try {
    validateWorkloadSpec(input);
  } catch (error) {
    expect(error).toBeInstanceOf(WorkloadError);
    return (error as WorkloadError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  throw new Error('expected a WorkloadError');
}

describe('SLO targets in a workload spec', () => {
  it('gives each request its class targets, with the client overriding dimension by dimension', () => {
    const parsed = validateWorkloadSpec(
      spec({
        slo_targets: { critical: { ttft_ms: 200, e2e_ms: 5000 }, standard: { ttft_ms: 2000 } },
        clients: [client('tight', 'critical', { slo: { ttft_ms: 50, tpot_ms: 30 } }), client('loose', 'standard'), client('none', 'batch')],
      }),
    );
    const requests = generateWorkloadRequests(parsed);
    const byClient = (id: string) => requests.filter((r) => r.clientId === id);
    expect(byClient('tight').every((r) => r.slo !== undefined && r.slo.ttftMs === 50 && r.slo.tpotMs === 30 && r.slo.e2eMs === 5000)).toBe(true);
    expect(byClient('loose').map((r) => r.slo)).toEqual(byClient('loose').map(() => ({ ttftMs: 2000 })));
    expect(byClient('none').every((r) => !('slo' in r))).toBe(true);
    // One frozen object per client, not one per request.
    expect(new Set(byClient('tight').map((r) => r.slo)).size).toBe(1);
  });

  it('refuses bad targets naming the key path', () => {
    expect(pathsOf(spec({ clients: [client('a', 'critical', { slo: {} })] }))).toEqual(['clients[0].slo: must set ttft_ms, tpot_ms or e2e_ms']);
    expect(pathsOf(spec({ clients: [client('a', 'critical', { slo: { ttft_ms: 0.0001 } })] }))[0]).toMatch(/^clients\[0\]\.slo\.ttft_ms: must be >= 0\.001/);
    expect(pathsOf(spec({ clients: [client('a', 'critical', { slo: { ttft: 5 } })] }))[0]).toMatch(/^clients\[0\]\.slo/);
    expect(pathsOf(spec({ clients: [client('a', 'critical')], slo_targets: { critical: { e2e_ms: -1 } } }))).toEqual(['slo_targets.critical.e2e_ms: must be > 0']);
    expect(pathsOf(spec({ clients: [client('a', 'critical')], slo_targets: { vip: { ttft_ms: 1 } } }))[0]).toMatch(/^slo_targets/);
  });

  it('sends the TTFT target as x-slo-ttft-ms, in decimal milliseconds the gateway reads', () => {
    const [request] = generateWorkloadRequests(validateWorkloadSpec(spec({ clients: [client('a', 'critical', { slo: { ttft_ms: 12.5, e2e_ms: 100 } })] })));
    expect(schedulingHeadersOf(request!)).toEqual({ [httpHeaders.fairnessId]: 't', [httpHeaders.sloClass]: 'critical', [httpHeaders.sloTtftMs]: '12.5' });
    expect(decimalMs(0.001)).toBe('0.001');
    expect(decimalMs(250)).toBe('250');
    expect(decimalMs(3_600_000)).toBe('3600000');
    const [plain] = generateWorkloadRequests(validateWorkloadSpec(spec({ clients: [client('a', 'critical')] })));
    expect(Object.keys(schedulingHeadersOf(plain!))).not.toContain(httpHeaders.sloTtftMs);
  });
});
