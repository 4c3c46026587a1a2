/**
 * What an instance serves in a disaggregated deployment (docs/behaviour.md §1, "Disaggregated
 * prefill/decode"). `both` is today's aggregated instance; `prefill` runs prompts and hands the KV
 * blocks to a decode instance; `decode` receives them and generates. The names follow vLLM's
 * `kv_role` (`kv_producer`, `kv_consumer`, `kv_both`) without its prefix.
 */
export const WORKER_ROLES = ['both', 'prefill', 'decode'] as const;
export type WorkerRole = (typeof WORKER_ROLES)[number];

/** The instance can be picked to run a prompt's prefill. */
export function servesPrefill(role: WorkerRole): boolean {
  return role !== 'decode';
}

/** The instance can be picked to generate a request's output tokens. */
export function servesDecode(role: WorkerRole): boolean {
  return role !== 'prefill';
}
