import { loadConfig, loadProfile } from '@sluice/config';
import { blockIds } from '@sluice/contracts';
import { generateWorkloadRequests, validateWorkloadSpec } from '@sluice/workload';
import { describe, expect, it } from 'vitest';
import { fastBlockIds } from './block-ids.js';
import { simulate } from './twin.js';

const tokens = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i);

describe('fastBlockIds', () => {
  it('gives one id per full block, none for a partial tail', () => {
    expect(fastBlockIds(tokens(15))).toHaveLength(0);
    expect(fastBlockIds(tokens(16))).toHaveLength(1);
    expect(fastBlockIds(tokens(47))).toHaveLength(2);
  });

  it('gives non-negative safe integers that use their high bits (53 bits, not 32)', () => {
    const ids = fastBlockIds(tokens(16 * 1000));
    for (const id of ids) expect(Number.isSafeInteger(id) && id >= 0).toBe(true);
    expect(ids.some((id) => id >= 2 ** 52)).toBe(true);
  });

  it('chains: equal leading blocks give equal ids, and a change makes every later id differ', () => {
    const a = tokens(64);
    const b = [...a];
    b[20] = 999_999; // in block 1
    const [ia, ib] = [fastBlockIds(a), fastBlockIds(b)];
    expect(ib[0]).toBe(ia[0]);
    for (let k = 1; k < 4; k++) expect(ib[k]).not.toBe(ia[k]);
    // The same block after a different prefix is a different block.
    const shifted = [...tokens(16, 5000), ...a.slice(0, 16)];
    expect(fastBlockIds(shifted)[1]).not.toBe(ia[0]);
  });

  it('does not collide over 200,000 distinct blocks of near-identical prompts', () => {
    const seen = new Set<number>();
    for (let p = 0; p < 2_000; p++) {
      // Prompts that differ only in their last token of their first block, then share the rest.
      const prompt = tokens(1_600);
      prompt[15] = p;
      for (const id of fastBlockIds(prompt)) seen.add(id);
    }
    expect(seen.size).toBe(200_000);
  });
});

describe('the twin with fast block ids vs the gateway\'s SHA-256 hashes', () => {
  it('gives byte-identical records on a prefix-heavy workload with weighted routing', () => {
    const config = loadConfig({ argv: ['--worker.instances=3', '--router.policy=weighted', '--worker.kvBlocks=600'] });
    const profile = loadProfile(config);
    const requests = generateWorkloadRequests(
      validateWorkloadSpec({
        seed: 7,
        aggregate_rate: 150,
        num_requests: 300,
        clients: Array.from({ length: 3 }, (_, g) => ({
          id: `c${g}`,
          tenant_id: `t${g}`,
          slo_class: 'standard',
          rate_fraction: 1,
          arrival: { process: 'poisson' },
          prefix_group: `g${g}`,
          prefix_length: 256,
          input_distribution: { type: 'gaussian', params: { mean: 256, std_dev: 64, min: 16 } },
          output_distribution: { type: 'gaussian', params: { mean: 32, std_dev: 8, min: 1 } },
        })),
      }),
    );
    const options = { config, profile };
    const fast = simulate(requests, options);
    const sha = simulate(requests, { ...options, blockHasher: (ids) => blockIds(ids) });
    expect(JSON.stringify(fast.records)).toBe(JSON.stringify(sha.records));
    expect(fast.events).toBe(sha.events);
    // The comparison is not empty: ids that never match (no prefix ever shared) change the run.
    let next = 0;
    const unshared = simulate(requests, { ...options, blockHasher: (ids) => fastBlockIds(ids).map(() => next++) });
    expect(JSON.stringify(unshared.records)).not.toBe(JSON.stringify(fast.records));
  });
});
