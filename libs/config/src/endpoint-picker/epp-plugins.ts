import { CONCURRENCY_DETECTOR, EDF_ORDERING, FCFS_ORDERING, GLOBAL_STRICT_FAIRNESS, ROUND_ROBIN_FAIRNESS, SLO_DEADLINE_ORDERING, UTILIZATION_DETECTOR, type ScorerName } from '@sluice/policies';

/*
 * The Endpoint Picker's plugin types (its in-tree registry, `registerInTreePlugins` in
 * kubernetes-sigs/gateway-api-inference-extension cmd/epp/runner/runner.go at
 * 1748e829d1161147aaf35e76699ec86fd88406d2, the last commit before the EPP left that repository),
 * each with what sluice does in its place, or why sluice refuses it. One row per type; the
 * translator reads nothing else, so a type added here is a type supported.
 */

/** Where a plugin sits in the Endpoint Picker, which decides where it may be referenced from. */
export type EppPluginKind = 'scorer' | 'picker' | 'profile-handler' | 'saturation-detector' | 'fairness' | 'ordering' | 'data-layer' | 'parser';

export type EppPluginRow =
  | { readonly supported: true; readonly kind: EppPluginKind; readonly sluice: string; readonly scorer?: ScorerName; readonly policy?: string }
  | { readonly supported: false; readonly reason: string };

const scorer = (name: ScorerName, sluice: string): EppPluginRow => ({ supported: true, kind: 'scorer', scorer: name, sluice });
const refused = (reason: string): EppPluginRow => ({ supported: false, reason });

export const EPP_PLUGINS: Readonly<Record<string, EppPluginRow>> = {
  // Scorers (pkg/epp/framework/plugins/scheduling/scorer/*): the weighted policy's scorers.
  // prefix/plugin.go: matched blocks / total blocks of the router-side (approximate) index.
  'prefix-cache-scorer': scorer('prefix-affinity', 'router.policies.weighted.weights.prefix-affinity'),
  // queuedepth/queue.go: (max − waiting) / (max − min) over the candidates.
  'queue-scorer': scorer('queue-depth', 'router.policies.weighted.weights.queue-depth'),
  // kvcacheutilization/kvcache_utilization.go: 1 − KV cache usage.
  'kv-cache-utilization-scorer': scorer('kv-utilization', 'router.policies.weighted.weights.kv-utilization'),
  'lora-affinity-scorer': refused('sluice has no LoRA adapters'),
  'running-requests-size-scorer': refused('no sluice scorer reads the running batch alone (queue-depth reads queue + batch + in flight)'),
  'token-load-scorer': refused('no sluice scorer reads the tokens in flight per endpoint'),
  // llm-d's scheduler registers it too (llm-d/llm-d-inference-scheduler pkg/plugins/scorer/load_aware.go
  // at d5cbb3224910773dfdc9ccd3976aa789990fe78f): 0.5 for an empty queue, down to 0 at `threshold` waiting.
  'load-aware-scorer': refused("sluice's load-balance scorer is 1 / (1 + effective load), not llm-d's 0.5 · (1 − waiting / threshold)"),
  'latency-scorer': refused("sluice's router has no latency predictor (admission's slo-predictive policy predicts, in admission.policy)"),
  // Pickers (scheduling/picker/*). maxscore/picker.go: the best score, ties shuffled: the weighted policy's argmax with random ties.
  'max-score-picker': { supported: true, kind: 'picker', sluice: "router.policy: weighted (argmax, exact ties broken by the seeded random source)" },
  'random-picker': refused('no sluice routing policy picks uniformly at random'),
  'weighted-random-picker': refused('no sluice routing policy picks at random in proportion to scores (weighted takes the argmax)'),
  // scheduling/profile/single_profile_handler.go: one profile per request, what sluice's router runs.
  'single-profile-handler': { supported: true, kind: 'profile-handler', sluice: 'one scheduling profile per request (the router)' },
  // Saturation detectors (flowcontrol/saturationdetector/*): flowController.saturationDetector.
  [UTILIZATION_DETECTOR]: { supported: true, kind: 'saturation-detector', sluice: 'flowController.saturationDetector', policy: UTILIZATION_DETECTOR },
  [CONCURRENCY_DETECTOR]: { supported: true, kind: 'saturation-detector', sluice: 'flowController.saturationDetector', policy: CONCURRENCY_DETECTOR },
  // Flow control's policies (flowcontrol/fairness/*, flowcontrol/ordering/*): the same names in sluice.
  [GLOBAL_STRICT_FAIRNESS]: { supported: true, kind: 'fairness', sluice: 'fairnessPolicyRef', policy: GLOBAL_STRICT_FAIRNESS },
  [ROUND_ROBIN_FAIRNESS]: { supported: true, kind: 'fairness', sluice: 'fairnessPolicyRef', policy: ROUND_ROBIN_FAIRNESS },
  [FCFS_ORDERING]: { supported: true, kind: 'ordering', sluice: 'orderingPolicyRef', policy: FCFS_ORDERING },
  [EDF_ORDERING]: { supported: true, kind: 'ordering', sluice: 'orderingPolicyRef', policy: EDF_ORDERING },
  [SLO_DEADLINE_ORDERING]: { supported: true, kind: 'ordering', sluice: 'orderingPolicyRef', policy: SLO_DEADLINE_ORDERING },
  'static-usage-limit-policy': refused("sluice's flow control has no usage-limit policy: the saturation detector alone gates dispatch"),
  'eviction-sheddable-filter': refused("sluice's flow control does not evict dispatched requests"),
  'eviction-priority-then-time-ordering': refused("sluice's flow control does not evict dispatched requests"),
  // Data layer (datalayer/source/metrics, datalayer/extractor/metrics): the EPP scrapes each
  // model server's /metrics; sluice's workers push the same signals (waiting, running, KV usage)
  // in their load snapshots over NATS, so only the defaults (a vLLM engine on http /metrics) mean
  // what they say here.
  'metrics-data-source': { supported: true, kind: 'data-layer', sluice: "the workers' load snapshots over NATS (no scrape)" },
  'core-metrics-extractor': { supported: true, kind: 'data-layer', sluice: "the workers' load snapshots carry vLLM's signals" },
  'approx-prefix-cache-producer': { supported: true, kind: 'data-layer', sluice: "the router's prefix index (16-token blocks)" },
  'inflight-load-producer': { supported: true, kind: 'data-layer', sluice: "the router's in-flight counts" },
  'k8s-notification-source': refused('sluice watches no Kubernetes objects: its workers announce themselves over NATS'),
  'endpoint-notification-source': refused('sluice watches no Kubernetes objects: its workers announce themselves over NATS'),
  // Parsers (requesthandling/parsers/*): the gateway reads OpenAI requests.
  'openai-parser': { supported: true, kind: 'parser', sluice: "the gateway's OpenAI API" },
  'vllmgrpc-parser': refused("sluice's gateway and workers speak HTTP/JSON (OpenAI), not vLLM's gRPC"),
  'passthrough-parser': refused("sluice's gateway reads every request as OpenAI JSON (the prompt for prefix routing, the model)"),
  // Filters, request-control and the latency predictor.
  'prefix-cache-affinity-filter': refused('sluice has no scheduling filters: every live instance of the model is a candidate'),
  'slo-headroom-tier-filter': refused('sluice has no scheduling filters: every live instance of the model is a candidate'),
  'header-based-testing-filter': refused('sluice has no scheduling filters: every live instance of the model is a candidate'),
  'latency-slo-admitter': refused("sluice's SLO admission is admission.policy slo-predictive, with its own parameters"),
  'predicted-latency-producer': refused("sluice's router has no latency predictor (admission's slo-predictive policy predicts, in admission.policy)"),
  'request-attribute-reporter': refused('sluice reports request attributes in its own traces and metrics, not through a plugin'),
  'destination-endpoint-served-verifier': refused("a conformance-test plugin: sluice's tests check the served endpoint themselves"),
};

/** Supported types, for the message naming an unknown one. */
export const SUPPORTED_EPP_PLUGIN_TYPES = Object.entries(EPP_PLUGINS)
  .filter(([, row]) => row.supported)
  .map(([type]) => type);
