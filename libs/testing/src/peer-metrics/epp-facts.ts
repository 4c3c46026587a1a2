import type { MetricFact } from './metric-fact.js';

/**
 * The Endpoint Picker's metrics as the llm-d router exposes them: the current `llm_d_epp_*` names
 * and, beside them, the deprecated Gateway API Inference Extension names its dashboards still
 * query. Facts read from llm-d/llm-d-router `pkg/epp/metrics/llm_d_router_metrics.go` and
 * `pkg/epp/metrics/metrics.go` (its copy of kubernetes-sigs/gateway-api-inference-extension's),
 * the outcome values from `pkg/epp/flowcontrol/types/outcomes.go` (`QueueOutcome.String()`).
 *
 * In sluice the gateway is the EPP's request path (objective metrics), the flow controller its
 * flow-control layer, and the router its scheduler and pool view (pool metrics).
 */

const LLMD = 'llm-d/llm-d-router pkg/epp/metrics/llm_d_router_metrics.go';
const GAIE = 'llm-d/llm-d-router pkg/epp/metrics/metrics.go (from kubernetes-sigs/gateway-api-inference-extension)';
const COLLECTOR = 'llm-d/llm-d-router pkg/epp/metrics/collectors/inference_pool.go';

/** Flow control's queue time: 100 µs to a minute. */
const QUEUE_DURATION = ['0.0001', '0.0005', '0.001', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '30', '60'];
/** Scheduler, plugin, dispatch-cycle and enqueue times: 100 µs to 100 ms. */
const FAST = ['0.0001', '0.0002', '0.0005', '0.001', '0.002', '0.005', '0.01', '0.02', '0.05', '0.1'];
/** `GeneralLatencyBuckets`: 5 ms to an hour. */
const GENERAL_LATENCY = ['0.005', '0.025', '0.05', '0.1', '0.2', '0.4', '0.6', '0.8', '1', '1.25', '1.5', '2', '3', '4', '5', '6', '8', '10', '15', '20', '30', '45', '60', '120', '180', '240', '300', '360', '480', '600', '900', '1200', '1800', '2700', '3600'];
const OUTPUT_TOKENS = ['1', '8', '16', '32', '64', '128', '256', '512', '1024', '2048', '4096', '8192'];

const FLOW = ['fairness_id', 'priority'];
const POOLED_FLOW = [...FLOW, 'inference_pool', 'model_name', 'target_model_name'];
const MODEL = ['model_name', 'target_model_name'];
const LLMD_REQUEST = [...MODEL, 'fairness_id', 'priority'];

/** The outcomes a run with queuing and a capacity limit produces (the EPP writes them capitalised). */
const QUEUE_OUTCOMES = { outcome: ['Dispatched'] };
const ENQUEUE_OUTCOMES = { outcome: ['RejectedCapacity'] };

function flowControl(prefix: string, source: string): MetricFact[] {
  return [
    { name: `${prefix}_request_queue_duration_seconds`, type: 'histogram', service: 'flow-controller', labels: [...POOLED_FLOW, 'outcome'], buckets: QUEUE_DURATION, values: QUEUE_OUTCOMES, source },
    { name: `${prefix}_request_enqueue_duration_seconds`, type: 'histogram', service: 'flow-controller', labels: [...FLOW, 'outcome'], buckets: FAST, values: ENQUEUE_OUTCOMES, source },
    { name: `${prefix}_dispatch_cycle_duration_seconds`, type: 'histogram', service: 'flow-controller', labels: [], buckets: FAST, source },
    { name: `${prefix}_queue_size`, type: 'gauge', service: 'flow-controller', labels: POOLED_FLOW, values: { inference_pool: ['sluice'] }, source },
    { name: `${prefix}_queue_bytes`, type: 'gauge', service: 'flow-controller', labels: POOLED_FLOW, source },
    // The newest llm-d router adds `stage` (prefill, decode, effective) to the saturation gauge.
    { name: `${prefix}_pool_saturation`, type: 'gauge', service: 'flow-controller', labels: ['inference_pool'], optionalLabels: ['stage'], values: { inference_pool: ['sluice'] }, source },
  ];
}

function pool(names: { kv: string; queue: string; running: string; ready: string; perEndpoint: string; endpoint: string }, source: string): MetricFact[] {
  return [
    { name: names.kv, type: 'gauge', service: 'router', labels: ['name'], values: { name: ['sluice'] }, source },
    { name: names.queue, type: 'gauge', service: 'router', labels: ['name'], source },
    { name: names.running, type: 'gauge', service: 'router', labels: ['name'], source },
    { name: names.ready, type: 'gauge', service: 'router', labels: ['name'], source },
    { name: names.perEndpoint, type: 'gauge', service: 'router', labels: ['name', names.endpoint], source: COLLECTOR },
  ];
}

export const EPP_FACTS: readonly MetricFact[] = [
  ...flowControl('inference_extension_flow_control', GAIE),
  ...flowControl('llm_d_epp_flow_control', LLMD),

  ...pool(
    { kv: 'inference_pool_average_kv_cache_utilization', queue: 'inference_pool_average_queue_size', running: 'inference_pool_average_running_requests', ready: 'inference_pool_ready_pods', perEndpoint: 'inference_pool_per_pod_queue_size', endpoint: 'model_server_pod' },
    GAIE,
  ),
  ...pool(
    { kv: 'llm_d_epp_average_kv_cache_utilization', queue: 'llm_d_epp_average_queue_size', running: 'llm_d_epp_average_running_requests', ready: 'llm_d_epp_ready_endpoints', perEndpoint: 'llm_d_epp_per_endpoint_queue_size', endpoint: 'model_server_endpoint' },
    LLMD,
  ),
  { name: 'inference_extension_scheduler_e2e_duration_seconds', type: 'histogram', service: 'router', labels: [], buckets: FAST, source: GAIE },
  { name: 'llm_d_epp_scheduler_e2e_duration_seconds', type: 'histogram', service: 'router', labels: [], buckets: FAST, source: LLMD },
  { name: 'inference_extension_info', type: 'gauge', service: 'router', labels: ['commit', 'build_ref'], source: GAIE },
  { name: 'llm_d_epp_info', type: 'gauge', service: 'router', labels: ['commit', 'build_ref'], source: LLMD },

  // GAIE's objective metrics carry the model pair; llm-d's copy adds `priority` to the request count.
  { name: 'inference_objective_request_total', type: 'counter', service: 'gateway', labels: MODEL, optionalLabels: ['priority'], source: GAIE },
  { name: 'inference_objective_request_error_total', type: 'counter', service: 'gateway', labels: [...MODEL, 'error_code'], values: { error_code: ['ResourceExhausted'] }, source: GAIE },
  { name: 'inference_objective_request_duration_seconds', type: 'histogram', service: 'gateway', labels: MODEL, buckets: GENERAL_LATENCY, source: GAIE },
  { name: 'inference_objective_request_sizes', type: 'histogram', service: 'gateway', labels: MODEL, source: GAIE },
  { name: 'inference_objective_response_sizes', type: 'histogram', service: 'gateway', labels: MODEL, source: GAIE },
  { name: 'inference_objective_input_tokens', type: 'histogram', service: 'gateway', labels: MODEL, source: GAIE },
  { name: 'inference_objective_output_tokens', type: 'histogram', service: 'gateway', labels: MODEL, buckets: OUTPUT_TOKENS, source: GAIE },
  { name: 'inference_objective_running_requests', type: 'gauge', service: 'gateway', labels: ['model_name'], source: GAIE },
  { name: 'llm_d_epp_request_total', type: 'counter', service: 'gateway', labels: LLMD_REQUEST, source: LLMD },
  { name: 'llm_d_epp_request_error_total', type: 'counter', service: 'gateway', labels: [...LLMD_REQUEST, 'error_code'], values: { error_code: ['ResourceExhausted'] }, source: LLMD },
  { name: 'llm_d_epp_request_duration_seconds', type: 'histogram', service: 'gateway', labels: LLMD_REQUEST, buckets: GENERAL_LATENCY, source: LLMD },
  { name: 'llm_d_epp_request_size_bytes', type: 'histogram', service: 'gateway', labels: LLMD_REQUEST, source: LLMD },
  { name: 'llm_d_epp_response_size_bytes', type: 'histogram', service: 'gateway', labels: LLMD_REQUEST, source: LLMD },
  { name: 'llm_d_epp_request_input_tokens', type: 'histogram', service: 'gateway', labels: LLMD_REQUEST, source: LLMD },
  { name: 'llm_d_epp_request_output_tokens', type: 'histogram', service: 'gateway', labels: LLMD_REQUEST, buckets: OUTPUT_TOKENS, source: LLMD },
  { name: 'llm_d_epp_request_running', type: 'gauge', service: 'gateway', labels: LLMD_REQUEST, source: LLMD },
];
