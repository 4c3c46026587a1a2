import { Counter, Gauge, type Registry } from '@sluice/telemetry';

/** Metric names a real vLLM pod exposes, so existing dashboards and detectors work unchanged. */
export interface WorkerMetrics {
  readonly running: Gauge<'model_name' | 'engine'>;
  readonly waiting: Gauge<'model_name' | 'engine'>;
  readonly kvUsage: Gauge<'model_name' | 'engine'>;
  readonly promptTokens: Counter<'model_name' | 'engine'>;
  readonly generationTokens: Counter<'model_name' | 'engine'>;
  readonly requestSuccess: Counter<'model_name' | 'engine' | 'finished_reason'>;
}

export function createWorkerMetrics(registry: Registry): WorkerMetrics {
  const labelNames = ['model_name', 'engine'] as const;
  return {
    running: new Gauge({ name: 'vllm:num_requests_running', help: 'Requests in the running batch.', labelNames, registers: [registry] }),
    waiting: new Gauge({ name: 'vllm:num_requests_waiting', help: 'Requests in the wait queue.', labelNames, registers: [registry] }),
    kvUsage: new Gauge({ name: 'vllm:kv_cache_usage_perc', help: 'KV cache usage, 0 to 1.', labelNames, registers: [registry] }),
    promptTokens: new Counter({ name: 'vllm:prompt_tokens_total', help: 'Prompt tokens accepted.', labelNames, registers: [registry] }),
    generationTokens: new Counter({ name: 'vllm:generation_tokens_total', help: 'Tokens generated.', labelNames, registers: [registry] }),
    requestSuccess: new Counter({
      name: 'vllm:request_success_total',
      help: 'Requests finished successfully, by finish reason.',
      labelNames: [...labelNames, 'finished_reason'],
      registers: [registry],
    }),
  };
}
