// The twin bench's cluster and workload, shared by twin.bench.mjs (speed) and records-hash.mjs
// (the records' fingerprint), so both always run the same thing.
import { loadConfig } from '@sluice/config';
import { validateWorkloadSpec } from '@sluice/workload';

export const AGGREGATE_RATE = 120;
export const INSTANCES = 4;

/** The live cluster's defaults with `weighted` routing (default weights) and four instances. */
export function benchConfig() {
  return loadConfig({ env: {}, argv: ['--router.policy=weighted', `--worker.instances=${INSTANCES}`] });
}

/**
 * Poisson arrivals at AGGREGATE_RATE requests/s, four clients (two tenants, slo_class standard)
 * each with its own prefix group: a 128-token shared prefix plus gaussian 384±128 tokens of its
 * own, gaussian 128±32 output tokens.
 */
export function benchSpec(requests) {
  return validateWorkloadSpec({
    seed: 20_240_601,
    aggregate_rate: AGGREGATE_RATE,
    num_requests: requests,
    clients: Array.from({ length: 4 }, (_, g) => ({
      id: `client-${g}`,
      tenant_id: `tenant-${g % 2}`,
      slo_class: 'standard',
      rate_fraction: 1,
      arrival: { process: 'poisson' },
      prefix_group: `system-prompt-${g}`,
      prefix_length: 128,
      input_distribution: { type: 'gaussian', params: { mean: 384, std_dev: 128, min: 16 } },
      output_distribution: { type: 'gaussian', params: { mean: 128, std_dev: 32, min: 1 } },
    })),
  });
}
