import { LeanCounter, LeanGauge, LeanHistogram, pythonFloatString, type CounterChild, type GaugeChild, type HistogramChild, type Registry } from '@sluice/telemetry';

/**
 * The metrics a vLLM server (v1 engine) exposes for what sluice's engine models, under vLLM's
 * names, labels, types and bucket bounds, so vLLM's dashboards and detectors work unchanged.
 * Facts from vllm-project/vllm: `vllm/v1/metrics/loggers.py` (PrometheusStatLogger: names, help,
 * labels, what each observes), `vllm/v1/metrics/buckets.py` (bucket families), and for the HTTP
 * metrics `vllm/entrypoints/serve/instrumentator/metrics.py` with prometheus-fastapi-instrumentator's
 * defaults. Every `vllm:*` histogram writes its `le` as vLLM's Python client does (`1.0`, `1e+06`).
 *
 * `engine` is the instance's data-parallel rank within the worker process; `model_name` the model.
 */

type L = 'model_name' | 'engine';

/** vLLM's finish reasons (FINISH_REASON_STRINGS); every one exists per engine from the start, at 0. */
export const FINISHED_REASONS = ['stop', 'length', 'abort', 'error', 'repetition'] as const;
export type FinishedReason = (typeof FINISHED_REASONS)[number];

/** `vllm:num_requests_waiting_by_reason`: waiting for room in the batch, or held back for a while. */
export const WAITING_REASONS = ['capacity', 'deferred'] as const;

/** `vllm:prompt_tokens_by_source` (PromptTokenStats' sources). */
export const PROMPT_TOKEN_SOURCES = ['local_compute', 'local_cache_hit', 'external_kv_transfer'] as const;

/** `vllm:engine_sleep_state`: one series per state; a sluice instance never sleeps. */
export const SLEEP_STATES = ['awake', 'weights_offloaded', 'discard_all'] as const;

/** The handlers of the OpenAI API a vLLM pod serves completions on. */
export const HTTP_HANDLERS = ['/v1/completions', '/v1/chat/completions'] as const;
export type HttpHandler = (typeof HTTP_HANDLERS)[number];
export type HttpStatusGroup = '2xx' | '4xx' | '5xx';

// ── bucket families (vllm/v1/metrics/buckets.py) ───────────────────────────────────────────
const REQUEST_LATENCY = [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680];
const TIME_TO_FIRST_TOKEN = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560];
const INTER_TOKEN_LATENCY = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80];
const ITERATION_TOKENS = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384];
const REQUEST_PARAMS_N = [1, 2, 5, 10, 20];
const REQUEST_NUM_PREEMPTIONS = [1, 2, 3, 4, 5, 10, 20];
const KV_CACHE_RESIDENCY = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800];
// prometheus-fastapi-instrumentator's defaults.
const HTTP_DURATION = [0.1, 0.5, 1];
const HTTP_DURATION_HIGHR = [0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 7.5, 10, 30, 60];

/**
 * vLLM's `request_tokens` family: 1, 2, 5, 10, 20, 50, … up to the largest such value that does
 * not pass the model's context length (its `build_1_2_5_buckets(max_model_len)`).
 */
export function oneTwoFiveBuckets(max: number): number[] {
  const buckets: number[] = [];
  for (let scale = 1; ; scale *= 10) {
    for (const mantissa of [1, 2, 5]) {
      if (mantissa * scale > max) return buckets;
      buckets.push(mantissa * scale);
    }
  }
}

/**
 * The cache configuration an instance reports in `vllm:cache_config_info`, as vLLM labels it: each
 * field as Python's `str()` prints it (`True`, `None`, `0.9`).
 */
export interface CacheConfigInfo {
  readonly block_size: string;
  readonly num_gpu_blocks: string;
  readonly enable_prefix_caching: string;
  readonly cache_dtype: string;
  readonly gpu_memory_utilization: string;
  readonly prefix_caching_hash_algo: string;
  readonly num_cpu_blocks: string;
  readonly kv_offloading_backend: string;
  readonly kv_offloading_size: string;
}
const CACHE_CONFIG_LABELS = ['engine', 'block_size', 'num_gpu_blocks', 'enable_prefix_caching', 'cache_dtype', 'gpu_memory_utilization', 'prefix_caching_hash_algo', 'num_cpu_blocks', 'kv_offloading_backend', 'kv_offloading_size'] as const;

/**
 * What sluice knows of a vLLM cache configuration: its block size, its KV blocks and prefix caching
 * (always on); the rest are vLLM's defaults, since sluice models no GPU memory, dtype or offloading.
 */
export function cacheConfigInfo(blockSize: number, totalKvBlocks: number): CacheConfigInfo {
  return {
    block_size: String(blockSize),
    num_gpu_blocks: String(totalKvBlocks),
    enable_prefix_caching: 'True',
    cache_dtype: 'auto',
    gpu_memory_utilization: '0.9',
    prefix_caching_hash_algo: 'sha256',
    num_cpu_blocks: 'None',
    kv_offloading_backend: 'native',
    kv_offloading_size: 'None',
  };
}

export interface WorkerMetricsOptions {
  /** The model's context length: the upper end of the `request_tokens` buckets. */
  readonly maxModelLen: number;
  /** Whether KV block residency is sampled (vLLM registers its three histograms only then). */
  readonly kvResidency: boolean;
}

/** The metric families of one worker process. Per-instance series come from `bindEngine`. */
export interface WorkerMetrics {
  readonly running: LeanGauge<L>;
  readonly waiting: LeanGauge<L>;
  readonly waitingByReason: LeanGauge<L | 'reason'>;
  readonly kvUsage: LeanGauge<L>;
  readonly sleepState: LeanGauge<L | 'sleep_state'>;
  readonly cacheConfig: LeanGauge<(typeof CACHE_CONFIG_LABELS)[number]>;
  readonly prefixQueries: LeanCounter<L>;
  readonly prefixHits: LeanCounter<L>;
  readonly externalPrefixQueries: LeanCounter<L>;
  readonly externalPrefixHits: LeanCounter<L>;
  readonly mmCacheQueries: LeanCounter<L>;
  readonly mmCacheHits: LeanCounter<L>;
  readonly preemptions: LeanCounter<L>;
  /** sluice's own (vLLM has none): requests refused KV blocks in a step, the engine's counter. */
  readonly kvAllocationFailures: LeanCounter<L>;
  readonly promptTokens: LeanCounter<L>;
  readonly promptTokensBySource: LeanCounter<L | 'source'>;
  readonly promptTokensCached: LeanCounter<L>;
  readonly generationTokens: LeanCounter<L>;
  readonly requestSuccess: LeanCounter<L | 'finished_reason'>;
  readonly ttft: LeanHistogram<L>;
  readonly itl: LeanHistogram<L>;
  readonly timePerOutputToken: LeanHistogram<L>;
  readonly e2e: LeanHistogram<L>;
  readonly queueTime: LeanHistogram<L>;
  readonly inferenceTime: LeanHistogram<L>;
  readonly prefillTime: LeanHistogram<L>;
  readonly decodeTime: LeanHistogram<L>;
  readonly iterationTokens: LeanHistogram<L>;
  readonly paramsN: LeanHistogram<L>;
  readonly numPreemptions: LeanHistogram<L>;
  readonly requestPromptTokens: LeanHistogram<L>;
  readonly requestGenerationTokens: LeanHistogram<L>;
  readonly maxNumGenerationTokens: LeanHistogram<L>;
  readonly paramsMaxTokens: LeanHistogram<L>;
  readonly prefillKvComputedTokens: LeanHistogram<L>;
  /** Only when residency is sampled. */
  readonly kvBlockLifetime: LeanHistogram<L> | undefined;
  readonly kvBlockIdleBeforeEvict: LeanHistogram<L> | undefined;
  readonly kvBlockReuseGap: LeanHistogram<L> | undefined;
  /** The API server's, as a vLLM pod's would count the requests it serves (see worker-on-bus.ts). */
  readonly httpRequests: LeanCounter<'handler' | 'method' | 'status'>;
  readonly httpDuration: LeanHistogram<'handler' | 'method'>;
  readonly httpDurationHighr: LeanHistogram;
  /** sluice's own: |actual − modelled| real duration of each step. */
  readonly stepError: LeanHistogram;
}

const labelNames = ['model_name', 'engine'] as const;

export function createWorkerMetrics(registers: Registry, options: WorkerMetricsOptions): WorkerMetrics {
  const r = [registers];
  const gauge = <X extends string = never>(name: string, help: string, extra: X[] = []) => new LeanGauge<L | X>({ name, help, labelNames: [...labelNames, ...extra], registers: r });
  const counter = <X extends string = never>(name: string, help: string, extra: X[] = []) => new LeanCounter<L | X>({ name, help, labelNames: [...labelNames, ...extra], registers: r });
  const histogram = (name: string, help: string, buckets: number[]) => new LeanHistogram<L>({ name, help, labelNames, buckets, formatLe: pythonFloatString, registers: r });
  const requestTokens = oneTwoFiveBuckets(options.maxModelLen);
  const residency = (name: string, help: string) => (options.kvResidency ? histogram(name, help, KV_CACHE_RESIDENCY) : undefined);
  return {
    running: gauge('vllm:num_requests_running', 'Number of requests in model execution batches.'),
    waiting: gauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.'),
    waitingByReason: gauge(
      'vllm:num_requests_waiting_by_reason',
      "Number of waiting requests by reason: 'capacity' waits for room in the running batch, 'deferred' is held back for a while (in sluice: its modelled queueing delay). The reasons sum to vllm:num_requests_waiting.",
      ['reason'],
    ),
    kvUsage: gauge('vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.'),
    sleepState: gauge('vllm:engine_sleep_state', 'Engine sleep state: awake = 1 while the engine is awake; weights_offloaded = 1 at sleep level 1, discard_all = 1 at level 2 (sluice instances never sleep).', ['sleep_state']),
    cacheConfig: new LeanGauge({ name: 'vllm:cache_config_info', help: 'Information of the LLMEngine CacheConfig', labelNames: CACHE_CONFIG_LABELS, registers: r }),
    prefixQueries: counter('vllm:prefix_cache_queries_total', 'Prefix cache queries, in terms of number of queried tokens.'),
    prefixHits: counter('vllm:prefix_cache_hits_total', 'Prefix cache hits, in terms of number of cached tokens.'),
    externalPrefixQueries: counter('vllm:external_prefix_cache_queries_total', 'External prefix cache queries from KV connector cross-instance cache sharing, in terms of number of queried tokens (disaggregated instances: each prompt at its first admission; otherwise 0).'),
    externalPrefixHits: counter('vllm:external_prefix_cache_hits_total', 'External prefix cache hits from KV connector cross-instance cache sharing, in terms of number of cached tokens (disaggregated instances: the prompt tokens a KV transfer brought; otherwise 0).'),
    mmCacheQueries: counter('vllm:mm_cache_queries_total', 'Multi-modal cache queries, in terms of number of queried items (sluice models text only: 0).'),
    mmCacheHits: counter('vllm:mm_cache_hits_total', 'Multi-modal cache hits, in terms of number of cached items (sluice models text only: 0).'),
    preemptions: counter('vllm:num_preemptions_total', 'Cumulative number of preemption from the engine.'),
    kvAllocationFailures: counter('sluice_worker_kv_allocation_failures_total', 'Requests that asked for KV blocks in a step and did not get them (once per step held back).'),
    promptTokens: counter('vllm:prompt_tokens_total', 'Number of prefill tokens processed.'),
    promptTokensBySource: counter('vllm:prompt_tokens_by_source_total', 'Number of prompt tokens by source.', ['source']),
    promptTokensCached: counter('vllm:prompt_tokens_cached_total', 'Number of cached prompt tokens (local + external).'),
    generationTokens: counter('vllm:generation_tokens_total', 'Number of generation tokens processed.'),
    requestSuccess: counter('vllm:request_success_total', 'Count of successfully processed requests.', ['finished_reason']),
    ttft: histogram('vllm:time_to_first_token_seconds', 'Histogram of time to first token in seconds.', TIME_TO_FIRST_TOKEN),
    itl: histogram('vllm:inter_token_latency_seconds', 'Histogram of inter-token latency in seconds.', INTER_TOKEN_LATENCY),
    timePerOutputToken: histogram('vllm:request_time_per_output_token_seconds', 'Histogram of time_per_output_token_seconds per request.', INTER_TOKEN_LATENCY),
    e2e: histogram('vllm:e2e_request_latency_seconds', 'Histogram of e2e request latency in seconds.', REQUEST_LATENCY),
    queueTime: histogram('vllm:request_queue_time_seconds', 'Histogram of time spent in WAITING phase for request.', REQUEST_LATENCY),
    inferenceTime: histogram('vllm:request_inference_time_seconds', 'Histogram of time spent in RUNNING phase for request.', REQUEST_LATENCY),
    prefillTime: histogram('vllm:request_prefill_time_seconds', 'Histogram of time spent in PREFILL phase for request.', REQUEST_LATENCY),
    decodeTime: histogram('vllm:request_decode_time_seconds', 'Histogram of time spent in DECODE phase for request.', REQUEST_LATENCY),
    iterationTokens: histogram('vllm:iteration_tokens_total', 'Histogram of number of tokens per engine_step.', ITERATION_TOKENS),
    paramsN: histogram('vllm:request_params_n', 'Histogram of the n request parameter.', REQUEST_PARAMS_N),
    numPreemptions: histogram('vllm:request_num_preemptions', 'Histogram of the number of preemptions per finished request.', REQUEST_NUM_PREEMPTIONS),
    requestPromptTokens: histogram('vllm:request_prompt_tokens', 'Number of prefill tokens processed.', requestTokens),
    requestGenerationTokens: histogram('vllm:request_generation_tokens', 'Number of generation tokens processed.', requestTokens),
    maxNumGenerationTokens: histogram('vllm:request_max_num_generation_tokens', 'Histogram of maximum number of requested generation tokens.', requestTokens),
    paramsMaxTokens: histogram('vllm:request_params_max_tokens', 'Histogram of the max_tokens request parameter.', requestTokens),
    prefillKvComputedTokens: histogram('vllm:request_prefill_kv_computed_tokens', 'Histogram of new KV tokens computed during prefill (excluding cached tokens).', requestTokens),
    kvBlockLifetime: residency('vllm:kv_block_lifetime_seconds', 'Histogram of KV cache block lifetime from allocation to eviction. Sampled metrics (controlled by worker.kvCacheMetricsSample).'),
    kvBlockIdleBeforeEvict: residency('vllm:kv_block_idle_before_evict_seconds', 'Histogram of idle time before KV cache block eviction. Sampled metrics (controlled by worker.kvCacheMetricsSample).'),
    kvBlockReuseGap: residency(
      'vllm:kv_block_reuse_gap_seconds',
      'Histogram of time gaps between consecutive KV cache block accesses. Only the most recent accesses are recorded. Sampled metrics (controlled by worker.kvCacheMetricsSample).',
    ),
    httpRequests: new LeanCounter({ name: 'http_requests_total', help: 'Total number of requests by method, status and handler.', labelNames: ['handler', 'method', 'status'], registers: r }),
    httpDuration: new LeanHistogram({
      formatLe: pythonFloatString,
      name: 'http_request_duration_seconds',
      help: 'Latency with only few buckets by handler. Made to be only used if aggregation by handler is important.',
      labelNames: ['handler', 'method'],
      buckets: HTTP_DURATION,
      registers: r,
    }),
    httpDurationHighr: new LeanHistogram({
      formatLe: pythonFloatString,
      name: 'http_request_duration_highr_seconds',
      help: 'Latency with many buckets but no API specific labels. Made for more accurate percentile calculations.',
      buckets: HTTP_DURATION_HIGHR,
      registers: r,
    }),
    stepError: new LeanHistogram({
      name: 'sluice_worker_step_timing_error_seconds',
      help: 'Absolute difference between the real and the modelled duration of each engine step.',
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.05],
      registers: r,
    }),
  };
}

type BoundCounter = CounterChild;
type BoundGauge = GaugeChild;
type BoundHistogram = HistogramChild;

/**
 * One instance's series, looked up once: the worker's hot paths (each step, each token) observe
 * through these rather than naming their labels on every call.
 */
export interface EngineMetrics {
  readonly running: BoundGauge;
  readonly waiting: BoundGauge;
  readonly waitingCapacity: BoundGauge;
  readonly waitingDeferred: BoundGauge;
  readonly kvUsage: BoundGauge;
  readonly prefixQueries: BoundCounter;
  readonly prefixHits: BoundCounter;
  /** Looked up at the KV connector (disaggregated instances only; else they stay 0). */
  readonly externalPrefixQueries: BoundCounter;
  readonly externalPrefixHits: BoundCounter;
  readonly preemptions: BoundCounter;
  readonly kvAllocationFailures: BoundCounter;
  readonly promptTokens: BoundCounter;
  readonly promptTokensLocalCompute: BoundCounter;
  readonly promptTokensLocalCacheHit: BoundCounter;
  /** Prompt tokens a KV transfer brought (disaggregated decode instances). */
  readonly promptTokensExternal: BoundCounter;
  readonly promptTokensCached: BoundCounter;
  readonly generationTokens: BoundCounter;
  readonly finished: Readonly<Record<FinishedReason, BoundCounter>>;
  readonly ttft: BoundHistogram;
  readonly itl: BoundHistogram;
  readonly timePerOutputToken: BoundHistogram;
  readonly e2e: BoundHistogram;
  readonly queueTime: BoundHistogram;
  readonly inferenceTime: BoundHistogram;
  readonly prefillTime: BoundHistogram;
  readonly decodeTime: BoundHistogram;
  readonly iterationTokens: BoundHistogram;
  readonly paramsN: BoundHistogram;
  readonly numPreemptions: BoundHistogram;
  readonly requestPromptTokens: BoundHistogram;
  readonly requestGenerationTokens: BoundHistogram;
  readonly maxNumGenerationTokens: BoundHistogram;
  readonly paramsMaxTokens: BoundHistogram;
  readonly prefillKvComputedTokens: BoundHistogram;
  readonly kvBlockLifetime: BoundHistogram | undefined;
  readonly kvBlockIdleBeforeEvict: BoundHistogram | undefined;
  readonly kvBlockReuseGap: BoundHistogram | undefined;
}

/**
 * Binds one instance's series and creates every one of them now, at zero (gauges 0, counters 0,
 * histograms empty), as vLLM does for each engine: dashboards have data, and success-rate panels
 * read 100 %, before the first request. The instance's sleep state (awake) and cache
 * configuration are set here once.
 */
export function bindEngine(m: WorkerMetrics, model: string, engine: string, cache: CacheConfigInfo): EngineMetrics {
  const l = { model_name: model, engine };
  const counter = (c: LeanCounter<L>) => c.labels(l);
  const gauge = (g: LeanGauge<L>) => {
    const bound = g.labels(l);
    bound.set(0);
    return bound;
  };
  // A series exists, empty, from its first labels() on.
  const histogram = (h: LeanHistogram<L>) => h.labels(l);
  for (const c of [m.mmCacheQueries, m.mmCacheHits]) c.inc(l, 0);
  for (const state of SLEEP_STATES) m.sleepState.set({ ...l, sleep_state: state }, state === 'awake' ? 1 : 0);
  m.cacheConfig.set({ engine, ...cache }, 1);
  const finished = {} as Record<FinishedReason, BoundCounter>;
  for (const reason of FINISHED_REASONS) finished[reason] = m.requestSuccess.labels({ ...l, finished_reason: reason });
  const waitingFor = (reason: (typeof WAITING_REASONS)[number]) => {
    const bound = m.waitingByReason.labels({ ...l, reason });
    bound.set(0);
    return bound;
  };
  const bySource = PROMPT_TOKEN_SOURCES.map((source) => m.promptTokensBySource.labels({ ...l, source }));
  return {
    running: gauge(m.running),
    waiting: gauge(m.waiting),
    waitingCapacity: waitingFor('capacity'),
    waitingDeferred: waitingFor('deferred'),
    kvUsage: gauge(m.kvUsage),
    prefixQueries: counter(m.prefixQueries),
    prefixHits: counter(m.prefixHits),
    externalPrefixQueries: counter(m.externalPrefixQueries),
    externalPrefixHits: counter(m.externalPrefixHits),
    preemptions: counter(m.preemptions),
    kvAllocationFailures: counter(m.kvAllocationFailures),
    promptTokens: counter(m.promptTokens),
    promptTokensLocalCompute: bySource[0]!,
    promptTokensLocalCacheHit: bySource[1]!,
    promptTokensExternal: bySource[2]!,
    promptTokensCached: counter(m.promptTokensCached),
    generationTokens: counter(m.generationTokens),
    finished,
    ttft: histogram(m.ttft),
    itl: histogram(m.itl),
    timePerOutputToken: histogram(m.timePerOutputToken),
    e2e: histogram(m.e2e),
    queueTime: histogram(m.queueTime),
    inferenceTime: histogram(m.inferenceTime),
    prefillTime: histogram(m.prefillTime),
    decodeTime: histogram(m.decodeTime),
    iterationTokens: histogram(m.iterationTokens),
    paramsN: histogram(m.paramsN),
    numPreemptions: histogram(m.numPreemptions),
    requestPromptTokens: histogram(m.requestPromptTokens),
    requestGenerationTokens: histogram(m.requestGenerationTokens),
    maxNumGenerationTokens: histogram(m.maxNumGenerationTokens),
    paramsMaxTokens: histogram(m.paramsMaxTokens),
    prefillKvComputedTokens: histogram(m.prefillKvComputedTokens),
    kvBlockLifetime: m.kvBlockLifetime && histogram(m.kvBlockLifetime),
    kvBlockIdleBeforeEvict: m.kvBlockIdleBeforeEvict && histogram(m.kvBlockIdleBeforeEvict),
    kvBlockReuseGap: m.kvBlockReuseGap && histogram(m.kvBlockReuseGap),
  };
}

/** The process's HTTP series, bound; the 2xx series of both handlers exist from the start, at zero. */
export interface HttpMetrics {
  /** Counts one request that ended, with its duration in real seconds. */
  served(handler: HttpHandler, status: HttpStatusGroup, seconds: number): void;
}

export function bindHttp(m: WorkerMetrics): HttpMetrics {
  const method = 'POST';
  const counts = new Map<string, BoundCounter>();
  const durations = new Map<string, BoundHistogram>();
  const countOf = (handler: HttpHandler, status: HttpStatusGroup) => {
    const key = `${handler} ${status}`;
    let bound = counts.get(key);
    if (!bound) counts.set(key, (bound = m.httpRequests.labels({ handler, method, status })));
    return bound;
  };
  const durationOf = (handler: HttpHandler) => {
    let bound = durations.get(handler);
    if (!bound) durations.set(handler, (bound = m.httpDuration.labels({ handler, method })));
    return bound;
  };
  for (const handler of HTTP_HANDLERS) {
    countOf(handler, '2xx');
    durationOf(handler);
  }
  const highr = m.httpDurationHighr.labels();
  return {
    served(handler, status, seconds) {
      countOf(handler, status).inc();
      durationOf(handler).observe(seconds);
      highr.observe(seconds);
    },
  };
}
