import { loadConfig, loadProfile } from '@sluice/config';
import type { RunRecord } from '@sluice/metrics';
import { generateWorkload, generateWorkloadRequests, validateWorkloadSpec, type WorkloadRequest } from '@sluice/workload';
import { describe, expect, it } from 'vitest';
import { Twin, simulate, simulateStreamed } from './twin.js';

/** Two tenants, two prefix groups, lengths varied, at a rate that queues (so flow control and preemption act). */
const spec = (requests: number, seed: number) =>
  validateWorkloadSpec({
    seed,
    aggregate_rate: 90,
    num_requests: requests,
    clients: Array.from({ length: 2 }, (_, g) => ({
      id: `client-${g}`,
      tenant_id: `tenant-${g}`,
      slo_class: g === 0 ? 'critical' : 'standard',
      rate_fraction: 1,
      arrival: { process: 'poisson' },
      prefix_group: `prompt-${g}`,
      prefix_length: 64,
      input_distribution: { type: 'gaussian', params: { mean: 600, std_dev: 300, min: 16 } },
      output_distribution: { type: 'gaussian', params: { mean: 160, std_dev: 80, min: 1 } },
    })),
  });

const config = loadConfig({ env: {}, argv: ['--worker.instances=2', '--router.policy=weighted', '--worker.kvBlocks=2000'] });
const profile = loadProfile(config);

/** Streams the workload; returns the records put back in request order, and the order they came in. */
function streamed(requests: Iterable<WorkloadRequest>): { records: RunRecord[]; positions: number[]; result: ReturnType<typeof simulateStreamed> } {
  const records: RunRecord[] = [];
  const positions: number[] = [];
  const result = simulateStreamed(requests, (record, position) => {
    records[position] = record;
    positions.push(position);
  }, { config, profile, checkInvariants: true });
  return { records, positions, result };
}

describe('twin: a streamed run', () => {
  it.each([1, 7, 20_240_601])('gives the records a kept run gives, record for record (seed %i)', (seed) => {
    const kept = simulate(generateWorkloadRequests(spec(600, seed)), { config, profile, checkInvariants: true });
    // Read lazily from the generator: each request when the one before it arrives.
    const { records, positions, result } = streamed(generateWorkload(spec(600, seed)));
    expect(JSON.stringify(records)).toBe(JSON.stringify(kept.records));
    expect(new Set(positions).size).toBe(600);
    expect(result.requests).toBe(600);
    expect(result.events).toBe(kept.events);
    expect(result.engine).toEqual(kept.engine);
    // Settled as they end, not in request order: the sink sees what a live client would.
    expect(positions).not.toEqual([...positions].sort((a, b) => a - b));
  });

  it('reads the workload one request ahead of the agenda, not all at once', () => {
    let read = 0;
    let mostAhead = 0;
    let settled = 0;
    function* counted(): Generator<WorkloadRequest> {
      for (const request of generateWorkload(spec(400, 3))) {
        read++;
        mostAhead = Math.max(mostAhead, read - settled);
        yield request;
      }
    }
    simulateStreamed(counted(), () => settled++, { config, profile });
    expect(settled).toBe(400);
    // In flight at most: the requests queued in the cluster (the rate outruns two instances), far fewer than the workload.
    expect(mostAhead).toBeLessThan(400);
  });

  it('refuses a workload out of arrival order, naming the request', () => {
    const [a, b] = generateWorkloadRequests(spec(2, 1));
    expect(() => streamed([b!, a!])).toThrow(/request r0 arrives at .* before the one read before it/);
  });

  it('refuses a chaos run, whose report reads every record', () => {
    const chaosConfig = loadConfig({ env: {}, argv: ['--worker.instances=2'] });
    const twin = new Twin({ config: chaosConfig, profile, chaos: { faults: [] } });
    expect(() => twin.stream(generateWorkload(spec(10, 1)), () => undefined)).toThrow(/chaos run .* run\(\)/);
  });

  it('runs an empty workload to nothing', () => {
    const { result } = streamed([]);
    expect(result.requests).toBe(0);
    expect(result.events).toBe(0);
  });
});
