/**
 * The shared cluster's settings and what a sharing file may know of it. No imports: the global
 * set-up reads this in vitest's own process, where the services' sources cannot load.
 */

/** Where the shared worker's instances serve vLLM's API of their own (`worker.http`): rank r on BASE + r. */
export const SHARED_WORKER_HTTP_BASE_PORT = 18340;

/** The cap on output lengths at the gateway, so a chat request that gives none runs to it, not the context's 40k. */
export const SHARED_GATEWAY_MAX_TOKENS = 24;

/**
 * Two instances in one worker process, ten times faster than the model; the gateway's output cap;
 * each instance's own vLLM server on. Every service also gets a free port (the host adds them).
 */
export const SHARED_CLUSTER_ARGS: readonly string[] = [
  '--worker.instances=2',
  '--worker.timeScale=10',
  `--gateway.limits.maxTokens=${SHARED_GATEWAY_MAX_TOKENS}`,
  '--worker.http.enabled=true',
  `--worker.http.basePort=${SHARED_WORKER_HTTP_BASE_PORT}`,
];

/** Plain data: it crosses from the set-up to the test workers. */
export interface SharedCluster {
  readonly gatewayUrl: string;
  readonly natsUrl: string;
  /** Every process as it became ready: `name` the service, `process` tells workers apart, `url` its /healthz /readyz /metrics. */
  readonly services: readonly { readonly name: string; readonly process: string; readonly url: string }[];
  /** `http://127.0.0.1:<port>` of each worker instance's own vLLM server, by rank. */
  readonly instanceUrls: readonly string[];
}
