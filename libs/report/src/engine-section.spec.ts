import { describe, expect, it } from 'vitest';
import { clusterEngineCounters, engineSection, type EngineInstanceCounters } from './engine-section.js';

const instance = (id: string, preemptions: number, kvAllocationFailures: number | null, queries: number, hits: number): EngineInstanceCounters => ({
  instance: id,
  preemptions,
  kvAllocationFailures,
  cacheHitRate: queries === 0 ? 0 : hits / queries,
  prefixCache: { queries, hits },
});

describe('the engine section: cluster values', () => {
  it('sums preemptions and failures and takes the unweighted mean of the rates, not Σhits / Σqueries', () => {
    // A busy instance: 900 of 1000 tokens hit (0.9); a light one: 1 of 10 (0.1); an idle one (0).
    const instances = [instance('w-r0', 3, 5, 1000, 900), instance('w-r1', 1, 0, 10, 1), instance('w-r2', 0, 2, 0, 0)];
    const cluster = clusterEngineCounters(instances);
    expect(cluster.preemptions).toBe(4);
    expect(cluster.kvAllocationFailures).toBe(7);
    // Unweighted: (0.9 + 0.1 + 0) / 3 = 1/3. Weighted by tokens it would be 901 / 1010 ≈ 0.892.
    expect(cluster.cacheHitRate).toBeCloseTo(1 / 3, 12);
    expect(cluster.cacheHitRate).not.toBeCloseTo(901 / 1010, 2);
  });

  it('leaves out instances that do not count failures, and says null when none does', () => {
    expect(clusterEngineCounters([instance('a', 0, null, 0, 0), instance('b', 0, 4, 0, 0)]).kvAllocationFailures).toBe(4);
    expect(clusterEngineCounters([instance('a', 2, null, 0, 0)]).kvAllocationFailures).toBeNull();
    expect(clusterEngineCounters([])).toEqual({ preemptions: 0, kvAllocationFailures: null, cacheHitRate: 0 });
  });

  it('sorts the instances by id and keeps how the rate was counted', () => {
    const section = engineSection([instance('w-r1', 1, 0, 4, 1), instance('w-r0', 0, 0, 4, 3)], 'prompt-tokens');
    expect(section.instances.map((i) => i.instance)).toEqual(['w-r0', 'w-r1']);
    expect(section).toMatchObject({ cacheHitRateOf: 'prompt-tokens', cluster: { preemptions: 1, kvAllocationFailures: 0, cacheHitRate: 0.5 } });
  });
});
