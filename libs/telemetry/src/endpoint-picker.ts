/**
 * What the Endpoint Picker's metrics share across sluice's services: bucket ladders and the shape
 * of help text, as the llm-d router EPP writes them.
 *
 * Sources (public repositories): llm-d/llm-d-router `pkg/epp/metrics/llm_d_router_metrics.go` (the
 * `llm_d_epp_*` names), `pkg/epp/metrics/metrics.go` (the deprecated GAIE twins
 * `inference_objective_*`, `inference_pool_*`, `inference_extension_*`), and
 * `pkg/common/observability/metrics/metrics.go` (the `llm_d_epp` subsystem and token ladder);
 * kubernetes-sigs/gateway-api-inference-extension `pkg/epp/metrics/metrics.go` for the GAIE originals.
 */

/** The current subsystem prefix of the llm-d router's Endpoint Picker. */
export const EPP_PREFIX = 'llm_d_epp_';

/** End-to-end latencies, 5 ms to an hour (request duration). */
export const EPP_LATENCY_BUCKETS = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60, 120, 180, 240, 300, 360, 480, 600, 900, 1200, 1800, 2700, 3600,
];
/** Time to first token: the latency ladder cut at two minutes. */
export const EPP_TTFT_BUCKETS = EPP_LATENCY_BUCKETS.slice(0, EPP_LATENCY_BUCKETS.indexOf(120) + 1);
/** Request body sizes in bytes, 64 B to 1 GiB (powers of two). */
export const EPP_REQUEST_SIZE_BUCKETS = Array.from({ length: 25 }, (_, i) => 64 * 2 ** i);
/** Response sizes in bytes (the llm-d ladder: GAIE's had 32778 where 32768 belongs). */
export const EPP_RESPONSE_SIZE_BUCKETS = [1, ...Array.from({ length: 14 }, (_, i) => 8 * 2 ** i)];
/** Token counts, 1 to 2^20. */
export const EPP_TOKEN_BUCKETS = [1, ...Array.from({ length: 18 }, (_, i) => 8 * 2 ** i)];
/** Output token counts, 1 to 8192. */
export const EPP_OUTPUT_TOKEN_BUCKETS = EPP_TOKEN_BUCKETS.slice(0, EPP_TOKEN_BUCKETS.indexOf(8192) + 1);
/** Normalized time per output token. */
export const EPP_NTPOT_BUCKETS = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10];
/** Streaming inter-token latency. */
export const EPP_ITL_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1, 2];
/** Sub-millisecond work: scheduling, plugins, the dispatch cycle, the enqueue decision. */
export const EPP_FAST_BUCKETS = [0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1];
/** Time in the flow-control layer, 100 µs to a minute. */
export const EPP_QUEUE_BUCKETS = [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Help text with the EPP's stability tag (every EPP metric is alpha). */
export function eppHelp(text: string): string {
  return `[ALPHA] ${text}`;
}

/** Help text of a deprecated twin: it names the metric that replaces it, as llm-d marks its legacy names. */
export function deprecatedEppHelp(replacement: string, text: string): string {
  return `[ALPHA] [Deprecated: Use ${replacement}] ${text}`;
}
