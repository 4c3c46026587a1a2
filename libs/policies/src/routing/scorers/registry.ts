import { PolicyRegistry } from '../../registry.js';
import { KV_UTILIZATION_SCORER, createKvUtilizationScorer } from './kv-utilization/kv-utilization.scorer.js';
import { LOAD_BALANCE_SCORER, createLoadBalanceScorer } from './load-balance/load-balance.scorer.js';
import { PREFIX_AFFINITY_SCORER, createPrefixAffinityScorer } from './prefix-affinity/prefix-affinity.scorer.js';
import { PRECISE_PREFIX_CACHE_SCORER, createPrecisePrefixCacheScorer } from './precise-prefix-cache/precise-prefix-cache.scorer.js';
import { QUEUE_DEPTH_SCORER, createQueueDepthScorer } from './queue-depth/queue-depth.scorer.js';
import type { Scorer } from './scorer.js';

/** Every built-in scorer of the `weighted` routing policy, by the name its weights use. */
export const SCORER_NAMES = [PREFIX_AFFINITY_SCORER, QUEUE_DEPTH_SCORER, KV_UTILIZATION_SCORER, LOAD_BALANCE_SCORER, PRECISE_PREFIX_CACHE_SCORER] as const;
export type ScorerName = (typeof SCORER_NAMES)[number];

/** Scorers take no parameters (their weight belongs to the policy). */
export type ScorerRegistry = PolicyRegistry<Scorer, unknown>;

export function registerBuiltInScorers(registry: ScorerRegistry): ScorerRegistry {
  return registry
    .register(PREFIX_AFFINITY_SCORER, createPrefixAffinityScorer)
    .register(QUEUE_DEPTH_SCORER, createQueueDepthScorer)
    .register(KV_UTILIZATION_SCORER, createKvUtilizationScorer)
    .register(LOAD_BALANCE_SCORER, createLoadBalanceScorer)
    .register(PRECISE_PREFIX_CACHE_SCORER, createPrecisePrefixCacheScorer);
}

export function createScorerRegistry(): ScorerRegistry {
  return registerBuiltInScorers(new PolicyRegistry('scorer'));
}
