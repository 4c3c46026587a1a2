/**
 * report.json's `engine` section: what each instance's engine counted over the run, and the
 * cluster's values. Built from the twin's engines at the end of `sluice simulate`, or from the
 * difference of two scrapes of the workers' /metrics around `sluice run`.
 */

/** How an instance's cache-hit rate was counted: the two sources cannot count the same thing. */
export type CacheHitRateOf =
  /**
   * The engine's own (the twin): KV blocks reused from the prefix cache / blocks looked up or newly
   * allocated, decode blocks counted as misses (docs/behaviour.md §1).
   */
  | 'kv-blocks'
  /** vLLM's counters (a live worker): prompt tokens found in the prefix cache / prompt tokens looked up. */
  | 'prompt-tokens';

export interface EngineInstanceCounters {
  /** The instance id, as records name it (`<workerId>-r<rank>`). */
  readonly instance: string;
  readonly preemptions: number;
  /** Requests refused KV blocks in a step (sluice_worker_kv_allocation_failures_total); null when the worker does not count them. */
  readonly kvAllocationFailures: number | null;
  /** 0 to 1; 0 when the instance looked nothing up (as the engine reports it). */
  readonly cacheHitRate: number;
  /** The prompt tokens behind a live instance's rate (vLLM's prefix-cache counters over the run). */
  readonly prefixCache?: { readonly queries: number; readonly hits: number };
}

export interface EngineClusterCounters {
  readonly preemptions: number;
  /** Summed over the instances that count them; null when none does. */
  readonly kvAllocationFailures: number | null;
  /** The unweighted mean of the instances' rates, as BLIS computes it (see `clusterEngineCounters`). */
  readonly cacheHitRate: number;
}

export interface EngineSection {
  readonly cacheHitRateOf: CacheHitRateOf;
  readonly instances: readonly EngineInstanceCounters[];
  readonly cluster: EngineClusterCounters;
}

/**
 * The cluster's values. Preemptions and KV allocation failures are sums. The cache-hit rate is the
 * UNWEIGHTED MEAN of the per-instance rates, as BLIS reports its cluster cache-hit rate: an idle
 * instance (rate 0) pulls it down as much as a busy one, and it is not Σhits / Σlookups. It keeps
 * sluice's figures comparable with BLIS's; the per-instance rates are in the section for any other
 * weighting. No instances: all 0.
 */
export function clusterEngineCounters(instances: readonly EngineInstanceCounters[]): EngineClusterCounters {
  const counted = instances.filter((i) => i.kvAllocationFailures !== null);
  return {
    preemptions: instances.reduce((n, i) => n + i.preemptions, 0),
    kvAllocationFailures: counted.length === 0 ? null : counted.reduce((n, i) => n + i.kvAllocationFailures!, 0),
    cacheHitRate: instances.length === 0 ? 0 : instances.reduce((sum, i) => sum + i.cacheHitRate, 0) / instances.length,
  };
}

/** The section for these instances (sorted by id, so two runs line up), with the cluster's values. */
export function engineSection(instances: readonly EngineInstanceCounters[], cacheHitRateOf: CacheHitRateOf): EngineSection {
  const sorted = [...instances].sort((a, b) => (a.instance < b.instance ? -1 : a.instance > b.instance ? 1 : 0));
  return { cacheHitRateOf, instances: sorted, cluster: clusterEngineCounters(sorted) };
}
