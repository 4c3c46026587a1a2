import { Counter, Gauge, Histogram, type Registry } from '@sluice/telemetry';

type L = 'model_name' | 'engine';

/**
 * Metric names a real vLLM pod exposes, so existing dashboards and detectors work unchanged.
 * `engine` is the instance's data-parallel rank; one label value per instance.
 */
export interface WorkerMetrics {
  readonly running: Gauge<L>;
  readonly waiting: Gauge<L>;
  readonly kvUsage: Gauge<L>;
  readonly prefixQueries: Counter<L>;
  readonly prefixHits: Counter<L>;
  readonly preemptions: Counter<L>;
  /** sluice's own (vLLM has none): requests refused KV blocks in a step, the engine's counter. */
  readonly kvAllocationFailures: Counter<L>;
  readonly promptTokens: Counter<L>;
  readonly generationTokens: Counter<L>;
  readonly requestSuccess: Counter<L | 'finished_reason'>;
  readonly ttft: Histogram<L>;
  readonly itl: Histogram<L>;
  readonly e2e: Histogram<L>;
  readonly queueTime: Histogram<L>;
  readonly prefillTime: Histogram<L>;
  readonly decodeTime: Histogram<L>;
  readonly requestPromptTokens: Histogram<L>;
  readonly requestGenerationTokens: Histogram<L>;
  /** sluice's own: |actual − modelled| real duration of each step. */
  readonly stepError: Histogram;
}

const labelNames = ['model_name', 'engine'] as const;
const SECONDS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80];
const ITL_SECONDS = [0.001, 0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.075, 0.1, 0.2, 0.3, 0.4, 0.5, 1];
const TOKENS = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768];

export function createWorkerMetrics(registers: Registry): WorkerMetrics {
  const r = [registers];
  const gauge = (name: string, help: string) => new Gauge({ name, help, labelNames, registers: r });
  const counter = (name: string, help: string) => new Counter({ name, help, labelNames, registers: r });
  const histogram = (name: string, help: string, buckets: number[]) => new Histogram({ name, help, labelNames, buckets, registers: r });
  return {
    running: gauge('vllm:num_requests_running', 'Requests in the running batch.'),
    waiting: gauge('vllm:num_requests_waiting', 'Requests waiting (queueing delay and wait queue).'),
    kvUsage: gauge('vllm:kv_cache_usage_perc', 'KV cache usage: used / total blocks, 0 to 1.'),
    prefixQueries: counter('vllm:prefix_cache_queries_total', 'Prompt tokens looked up in the prefix cache.'),
    prefixHits: counter('vllm:prefix_cache_hits_total', 'Prompt tokens found in the prefix cache.'),
    preemptions: counter('vllm:num_preemptions_total', 'Preemptions (KV blocks ran out).'),
    kvAllocationFailures: counter('sluice_worker_kv_allocation_failures_total', 'Requests that asked for KV blocks in a step and did not get them (once per step held back).'),
    promptTokens: counter('vllm:prompt_tokens_total', 'Prompt tokens of accepted requests.'),
    generationTokens: counter('vllm:generation_tokens_total', 'Tokens generated.'),
    requestSuccess: new Counter({
      name: 'vllm:request_success_total',
      help: 'Requests finished successfully, by finish reason.',
      labelNames: [...labelNames, 'finished_reason'],
      registers: r,
    }),
    ttft: histogram('vllm:time_to_first_token_seconds', 'Arrival at the instance to the first token.', SECONDS),
    itl: histogram('vllm:inter_token_latency_seconds', 'Time between consecutive tokens of a request.', ITL_SECONDS),
    e2e: histogram('vllm:e2e_request_latency_seconds', 'Arrival at the instance to the last token.', SECONDS),
    queueTime: histogram('vllm:request_queue_time_seconds', 'Arrival to entering the running batch.', SECONDS),
    prefillTime: histogram('vllm:request_prefill_time_seconds', 'Entering the batch to the first token.', SECONDS),
    decodeTime: histogram('vllm:request_decode_time_seconds', 'First token to the last token.', SECONDS),
    requestPromptTokens: histogram('vllm:request_prompt_tokens', 'Prompt length of finished requests.', TOKENS),
    requestGenerationTokens: histogram('vllm:request_generation_tokens', 'Output length of finished requests.', TOKENS),
    stepError: new Histogram({
      name: 'sluice_worker_step_timing_error_seconds',
      help: 'Absolute difference between the real and the modelled duration of each engine step.',
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.05],
      registers: r,
    }),
  };
}
