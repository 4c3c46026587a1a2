import { PRECISE_PREFIX_CACHE_SCORER } from '../routing/scorers/precise-prefix-cache/precise-prefix-cache.scorer.js';
import { KV_ROUTER, KvRouterParamsSchema } from '../routing/kv-router/kv-router.policy.js';
import { WEIGHTED, WeightedParamsSchema } from '../routing/weighted/weighted.policy.js';

/**
 * Whether a routing policy, with these parameters, reads the workers' KV events (the KV-event
 * index): `weighted` with a positive `precise-prefix-cache` weight, and `kv-router` unless told
 * not to use them. A router keeps the index and
 * follows the events only then, so other policies pay nothing for them.
 */
export function readsKvEvents(policy: string, params: unknown): boolean {
  if (policy === KV_ROUTER) {
    const parsed = KvRouterParamsSchema.safeParse(params ?? {});
    return parsed.success && parsed.data.useKvEvents;
  }
  if (policy !== WEIGHTED) return false;
  const parsed = WeightedParamsSchema.safeParse(params ?? {});
  return parsed.success && (parsed.data.weights[PRECISE_PREFIX_CACHE_SCORER] ?? 0) > 0;
}
