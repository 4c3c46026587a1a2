import type { MetricFact } from './metric-fact.js';

/**
 * The metrics a vLLM server (v1 engine) exposes that sluice's worker models, as facts read from
 * vllm-project/vllm: names, help and labels from `vllm/v1/metrics/loggers.py` (PrometheusStatLogger),
 * bucket bounds from `vllm/v1/metrics/buckets.py` and `tests/v1/metrics/test_histogram_buckets.py`,
 * the HTTP metrics from `vllm/entrypoints/serve/instrumentator/metrics.py` with
 * prometheus-fastapi-instrumentator's defaults. Bounds are written as Python's prometheus_client
 * writes them (`floatToGoString`), which is what vLLM's dashboards select (`le="1.0"`).
 */

const LOGGERS = 'vllm-project/vllm vllm/v1/metrics/loggers.py';
const BUCKETS = 'vllm-project/vllm vllm/v1/metrics/buckets.py';
const HTTP = 'vllm-project/vllm vllm/entrypoints/serve/instrumentator/metrics.py; trallnag/prometheus-fastapi-instrumentator metrics.py';

const ENGINE = ['model_name', 'engine'];

/** The `request_latency` family: e2e, queue, inference, prefill and decode times. */
const REQUEST_LATENCY = ['0.3', '0.5', '0.8', '1.0', '1.5', '2.0', '2.5', '5.0', '10.0', '15.0', '20.0', '30.0', '40.0', '50.0', '60.0', '120.0', '240.0', '480.0', '960.0', '1920.0', '7680.0'];
const TIME_TO_FIRST_TOKEN = ['0.001', '0.005', '0.01', '0.02', '0.04', '0.06', '0.08', '0.1', '0.25', '0.5', '0.75', '1.0', '2.5', '5.0', '7.5', '10.0', '20.0', '40.0', '80.0', '160.0', '640.0', '2560.0'];
const INTER_TOKEN_LATENCY = ['0.01', '0.025', '0.05', '0.075', '0.1', '0.15', '0.2', '0.3', '0.4', '0.5', '0.75', '1.0', '2.5', '5.0', '7.5', '10.0', '20.0', '40.0', '80.0'];
const ITERATION_TOKENS = ['1.0', '8.0', '16.0', '32.0', '64.0', '128.0', '256.0', '512.0', '1024.0', '2048.0', '4096.0', '8192.0', '16384.0'];
/** `build_1_2_5_buckets(max_model_len)` for the default model's 40,960 tokens: 1-2-5 steps up to the last ≤ 40,960. */
const REQUEST_TOKENS = ['1.0', '2.0', '5.0', '10.0', '20.0', '50.0', '100.0', '200.0', '500.0', '1000.0', '2000.0', '5000.0', '10000.0', '20000.0'];
const KV_CACHE_RESIDENCY = ['0.001', '0.002', '0.005', '0.01', '0.02', '0.05', '0.1', '0.2', '0.5', '1.0', '2.0', '5.0', '10.0', '20.0', '30.0', '60.0', '120.0', '300.0', '600.0', '1200.0', '1800.0'];

const gauge = (name: string, extra: string[] = [], values?: MetricFact['values']): MetricFact => ({ name, type: 'gauge', service: 'worker', labels: [...ENGINE, ...extra], values, source: LOGGERS });
const counter = (name: string, extra: string[] = [], values?: MetricFact['values']): MetricFact => ({ name, type: 'counter', service: 'worker', labels: [...ENGINE, ...extra], values, source: LOGGERS });
const histogram = (name: string, buckets: string[]): MetricFact => ({ name, type: 'histogram', service: 'worker', labels: ENGINE, buckets, exactLe: true, source: BUCKETS });

export const VLLM_FACTS: readonly MetricFact[] = [
  gauge('vllm:num_requests_running'),
  gauge('vllm:num_requests_waiting'),
  gauge('vllm:num_requests_waiting_by_reason', ['reason'], { reason: ['capacity', 'deferred'] }),
  gauge('vllm:kv_cache_usage_perc'),
  gauge('vllm:engine_sleep_state', ['sleep_state'], { sleep_state: ['awake', 'weights_offloaded', 'discard_all'] }),
  // Every CacheConfig field is a label; these are the ones vLLM's Instances dashboard shows. No model_name.
  {
    name: 'vllm:cache_config_info',
    type: 'gauge',
    service: 'worker',
    labels: ['engine', 'block_size', 'num_gpu_blocks', 'enable_prefix_caching', 'cache_dtype', 'gpu_memory_utilization', 'prefix_caching_hash_algo', 'num_cpu_blocks', 'kv_offloading_backend', 'kv_offloading_size'],
    openLabels: true,
    source: LOGGERS,
  },
  counter('vllm:num_preemptions_total'),
  counter('vllm:prompt_tokens_total'),
  counter('vllm:prompt_tokens_by_source_total', ['source'], { source: ['local_compute', 'local_cache_hit', 'external_kv_transfer'] }),
  counter('vllm:prompt_tokens_cached_total'),
  counter('vllm:generation_tokens_total'),
  counter('vllm:request_success_total', ['finished_reason'], { finished_reason: ['stop', 'length', 'abort', 'error', 'repetition'] }),
  counter('vllm:prefix_cache_queries_total'),
  counter('vllm:prefix_cache_hits_total'),
  histogram('vllm:time_to_first_token_seconds', TIME_TO_FIRST_TOKEN),
  histogram('vllm:inter_token_latency_seconds', INTER_TOKEN_LATENCY),
  histogram('vllm:request_time_per_output_token_seconds', INTER_TOKEN_LATENCY),
  histogram('vllm:e2e_request_latency_seconds', REQUEST_LATENCY),
  histogram('vllm:request_queue_time_seconds', REQUEST_LATENCY),
  histogram('vllm:request_inference_time_seconds', REQUEST_LATENCY),
  histogram('vllm:request_prefill_time_seconds', REQUEST_LATENCY),
  histogram('vllm:request_decode_time_seconds', REQUEST_LATENCY),
  histogram('vllm:iteration_tokens_total', ITERATION_TOKENS),
  histogram('vllm:request_params_n', ['1.0', '2.0', '5.0', '10.0', '20.0']),
  histogram('vllm:request_num_preemptions', ['1.0', '2.0', '3.0', '4.0', '5.0', '10.0', '20.0']),
  histogram('vllm:request_prompt_tokens', REQUEST_TOKENS),
  histogram('vllm:request_generation_tokens', REQUEST_TOKENS),
  histogram('vllm:request_max_num_generation_tokens', REQUEST_TOKENS),
  histogram('vllm:request_params_max_tokens', REQUEST_TOKENS),
  histogram('vllm:request_prefill_kv_computed_tokens', REQUEST_TOKENS),
  histogram('vllm:kv_block_lifetime_seconds', KV_CACHE_RESIDENCY),
  histogram('vllm:kv_block_idle_before_evict_seconds', KV_CACHE_RESIDENCY),
  histogram('vllm:kv_block_reuse_gap_seconds', KV_CACHE_RESIDENCY),
  // The API server's, as prometheus-fastapi-instrumentator writes them: status grouped by its first digit.
  { name: 'http_requests_total', type: 'counter', service: 'worker', labels: ['handler', 'method', 'status'], values: { status: ['2xx'], method: ['POST'] }, source: HTTP },
  { name: 'http_request_duration_seconds', type: 'histogram', service: 'worker', labels: ['handler', 'method'], buckets: ['0.1', '0.5', '1.0'], exactLe: true, source: HTTP },
  {
    name: 'http_request_duration_highr_seconds',
    type: 'histogram',
    service: 'worker',
    labels: [],
    buckets: ['0.01', '0.025', '0.05', '0.075', '0.1', '0.25', '0.5', '0.75', '1.0', '1.5', '2.0', '2.5', '3.0', '3.5', '4.0', '4.5', '5.0', '7.5', '10.0', '30.0', '60.0'],
    exactLe: true,
    source: HTTP,
  },
];
