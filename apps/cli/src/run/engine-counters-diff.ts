import type { EngineInstanceCounters } from '@sluice/report';
import { parseSamples, type Sample } from '../chaos/books/prometheus-text.js';

/** The worker's counters this reads (docs/metrics.md, "worker"); one series per instance (`engine` = rank). */
export const ENGINE_METRICS = {
  preemptions: 'vllm:num_preemptions_total',
  prefixQueries: 'vllm:prefix_cache_queries_total',
  prefixHits: 'vllm:prefix_cache_hits_total',
  kvAllocationFailures: 'sluice_worker_kv_allocation_failures_total',
} as const;

/** One worker process's /metrics, read: its samples, and whether it has the KV allocation failure counter at all. */
export interface WorkerScrape {
  readonly samples: readonly Sample[];
  /** An older worker has no such family; a counter that never grew has its `# TYPE` line and no sample. */
  readonly countsKvAllocationFailures: boolean;
}

export function readWorkerScrape(text: string): WorkerScrape {
  return { samples: parseSamples(text), countsKvAllocationFailures: text.includes(`# TYPE ${ENGINE_METRICS.kvAllocationFailures} counter`) };
}

interface Totals {
  preemptions: number;
  kvAllocationFailures: number;
  prefixQueries: number;
  prefixHits: number;
}

/**
 * Each instance's counters in one scrape, by instance id. The vllm:* series name an instance by
 * its rank (`engine`) only; the registry's `instance_id` label is the worker process's id, which
 * is also its instances' prefix, so `<instance_id>-r<engine>` is the id the records carry.
 * Instances appear by any vllm:* series (the load gauges are set from the first snapshot on).
 */
function totalsByInstance(samples: readonly Sample[]): Map<string, Totals> {
  const byInstance = new Map<string, Totals>();
  const fields = Object.entries(ENGINE_METRICS) as [keyof Totals, string][];
  for (const s of samples) {
    const { instance_id: worker, engine } = s.labels;
    if (worker === undefined || engine === undefined || !(s.name.startsWith('vllm:') || s.name === ENGINE_METRICS.kvAllocationFailures)) continue;
    const id = `${worker}-r${engine}`;
    let totals = byInstance.get(id);
    if (!totals) byInstance.set(id, (totals = { preemptions: 0, kvAllocationFailures: 0, prefixQueries: 0, prefixHits: 0 }));
    for (const [field, name] of fields) if (s.name === name) totals[field] += s.value;
  }
  return byInstance;
}

/**
 * What each instance counted between two scrapes of its worker: after − before, since the
 * counters run from the worker's start. An instance missing before (its process started during
 * the run) counted everything after it within the run. One missing after (its process is gone) is
 * left out: what it counted went with it. The cache-hit rate is vLLM's, in prompt tokens: hits /
 * queries over the run, 0 when nothing was looked up (as the engine reports an idle instance).
 */
export function engineCountersBetween(before: WorkerScrape, after: WorkerScrape): EngineInstanceCounters[] {
  const earlier = totalsByInstance(before.samples);
  const counters: EngineInstanceCounters[] = [];
  for (const [instance, now] of totalsByInstance(after.samples)) {
    const then = earlier.get(instance) ?? { preemptions: 0, kvAllocationFailures: 0, prefixQueries: 0, prefixHits: 0 };
    const queries = now.prefixQueries - then.prefixQueries;
    const hits = now.prefixHits - then.prefixHits;
    counters.push({
      instance,
      preemptions: now.preemptions - then.preemptions,
      kvAllocationFailures: after.countsKvAllocationFailures ? now.kvAllocationFailures - then.kvAllocationFailures : null,
      cacheHitRate: queries === 0 ? 0 : hits / queries,
      prefixCache: { queries, hits },
    });
  }
  return counters;
}
