import { describe, expect, it } from 'vitest';
import { engineCountersBetween, readWorkerScrape } from './engine-counters-diff.js';

/** A worker process of two instances as prom-client serves it (names from apps/worker/src/worker.metrics.ts). */
const scrape = (o: { preempt: [number, number]; queries: [number, number]; hits: [number, number]; failures?: [number, number] | 'none-yet' | 'absent'; worker?: string }): string => {
  const worker = o.worker ?? 'worker-5f3a9c';
  const series = (name: string, values: readonly [number, number]) =>
    values.map((v, rank) => `${name}{model_name="qwen3-14b",engine="${rank}",service="sluice-worker",instance_id="${worker}"} ${v}`).join('\n');
  const failures =
    o.failures === 'absent'
      ? ''
      : `# HELP sluice_worker_kv_allocation_failures_total Requests that asked for KV blocks in a step and did not get them (once per step held back).
# TYPE sluice_worker_kv_allocation_failures_total counter
${o.failures === 'none-yet' || o.failures === undefined ? '' : series('sluice_worker_kv_allocation_failures_total', o.failures)}`;
  return `# HELP vllm:num_requests_running Requests in the running batch.
# TYPE vllm:num_requests_running gauge
${series('vllm:num_requests_running', [0, 0])}
# HELP vllm:kv_cache_usage_perc KV cache usage: used / total blocks, 0 to 1.
# TYPE vllm:kv_cache_usage_perc gauge
${series('vllm:kv_cache_usage_perc', [0, 0.0625])}
# HELP vllm:prefix_cache_queries_total Prompt tokens looked up in the prefix cache.
# TYPE vllm:prefix_cache_queries_total counter
${series('vllm:prefix_cache_queries_total', o.queries)}
# HELP vllm:prefix_cache_hits_total Prompt tokens found in the prefix cache.
# TYPE vllm:prefix_cache_hits_total counter
${series('vllm:prefix_cache_hits_total', o.hits)}
# HELP vllm:num_preemptions_total Preemptions (KV blocks ran out).
# TYPE vllm:num_preemptions_total counter
${series('vllm:num_preemptions_total', o.preempt)}
${failures}
# HELP vllm:request_success_total Requests finished successfully, by finish reason.
# TYPE vllm:request_success_total counter
vllm:request_success_total{model_name="qwen3-14b",engine="0",finished_reason="length",service="sluice-worker",instance_id="${worker}"} 30
# HELP sluice_worker_step_timing_error_seconds Absolute difference between the real and the modelled duration of each engine step.
# TYPE sluice_worker_step_timing_error_seconds histogram
sluice_worker_step_timing_error_seconds_bucket{le="0.0001",service="sluice-worker",instance_id="${worker}"} 12
sluice_worker_step_timing_error_seconds_count{service="sluice-worker",instance_id="${worker}"} 40
# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total{service="sluice-worker",instance_id="${worker}"} 1.23
`;
};

describe('engine counters between two scrapes of a worker', () => {
  it('takes after − before per instance, naming each <instance_id>-r<engine>, with the hit rate in prompt tokens over the run', () => {
    const before = readWorkerScrape(scrape({ preempt: [2, 0], queries: [1000, 500], hits: [400, 100], failures: [5, 0] }));
    const after = readWorkerScrape(scrape({ preempt: [7, 1], queries: [3000, 500], hits: [1900, 100], failures: [12, 3] }));
    expect(engineCountersBetween(before, after)).toEqual([
      // r0: 5 preemptions, 7 failures, 1500 of 2000 tokens hit during the run (not 1900 / 3000 since the start).
      { instance: 'worker-5f3a9c-r0', preemptions: 5, kvAllocationFailures: 7, cacheHitRate: 0.75, prefixCache: { queries: 2000, hits: 1500 } },
      // r1 looked nothing up during the run: rate 0, as the engine reports an idle instance.
      { instance: 'worker-5f3a9c-r1', preemptions: 1, kvAllocationFailures: 3, cacheHitRate: 0, prefixCache: { queries: 0, hits: 0 } },
    ]);
  });

  it('reads a failure counter that never grew as 0, and one the worker does not have as null', () => {
    const quiet = scrape({ preempt: [0, 0], queries: [0, 0], hits: [0, 0], failures: 'none-yet' });
    expect(engineCountersBetween(readWorkerScrape(quiet), readWorkerScrape(quiet)).map((c) => c.kvAllocationFailures)).toEqual([0, 0]);
    const old = scrape({ preempt: [0, 0], queries: [0, 0], hits: [0, 0], failures: 'absent' });
    expect(engineCountersBetween(readWorkerScrape(old), readWorkerScrape(old)).map((c) => c.kvAllocationFailures)).toEqual([null, null]);
  });

  it('counts a process started during the run from zero (a new instance_id), and leaves out one that is gone', () => {
    const before = readWorkerScrape(scrape({ preempt: [9, 9], queries: [90, 90], hits: [9, 9], failures: [9, 9], worker: 'worker-old' }));
    const after = readWorkerScrape(scrape({ preempt: [1, 0], queries: [10, 0], hits: [5, 0], failures: [2, 0], worker: 'worker-new' }));
    const counters = engineCountersBetween(before, after);
    expect(counters.map((c) => c.instance)).toEqual(['worker-new-r0', 'worker-new-r1']);
    expect(counters[0]).toMatchObject({ preemptions: 1, kvAllocationFailures: 2, cacheHitRate: 0.5 });
  });
});
