import type { z } from 'zod';
import { seedOf, seededRandom } from '@sluice/collections';
import { PolicyRegistry } from '../registry.js';
import { ALWAYS_BUSIEST, AlwaysBusiestParamsSchema, createAlwaysBusiest } from './always-busiest/always-busiest.policy.js';
import { KV_ROUTER, KvRouterParamsSchema, createKvRouter } from './kv-router/kv-router.policy.js';
import { LEAST_LOADED, LeastLoadedParamsSchema, createLeastLoaded } from './least-loaded/least-loaded.policy.js';
import { ROUND_ROBIN, RoundRobinParamsSchema, createRoundRobin } from './round-robin/round-robin.policy.js';
import type { RoutingPolicy, RoutingPolicyDeps } from './routing-policy.js';
import { WEIGHTED, WeightedParamsSchema, createWeighted } from './weighted/weighted.policy.js';

/** Every built-in routing policy, by the name config uses. */
export const ROUTING_POLICY_NAMES = [ROUND_ROBIN, LEAST_LOADED, ALWAYS_BUSIEST, WEIGHTED, KV_ROUTER] as const;
export type RoutingPolicyName = (typeof ROUTING_POLICY_NAMES)[number];

/**
 * Each policy's parameter schema, so config can validate `router.policies.<name>.<param>` at
 * start-up and fail with the key's path. Every schema accepts `{}` (all defaults). One common
 * type, so it can be indexed by any name; for a typed parse use the policy's own schema.
 */
export const ROUTING_POLICY_PARAMS: { readonly [K in RoutingPolicyName]: z.ZodType<Record<string, unknown>> } = {
  [ROUND_ROBIN]: RoundRobinParamsSchema,
  [LEAST_LOADED]: LeastLoadedParamsSchema,
  [ALWAYS_BUSIEST]: AlwaysBusiestParamsSchema,
  [WEIGHTED]: WeightedParamsSchema,
  [KV_ROUTER]: KvRouterParamsSchema,
};

/**
 * The generic registry with the routing deps (the seeded random source, the tie-break). An
 * instance (a Nest provider, the twin's object), never a global map.
 */
export class RoutingPolicyRegistry extends PolicyRegistry<RoutingPolicy, unknown, RoutingPolicyDeps> {
  constructor() {
    super('routing policy');
  }

  /**
   * Creates the named policy; its factory parses `params` (a bad one throws its ZodError).
   * Without `deps`, the random source is seeded from the policy's name: reproducible, but every
   * router would then break ties alike, so a service should pass one seeded from its own id.
   */
  override create(name: string, params: unknown, deps: RoutingPolicyDeps = { random: seededRandom(seedOf(name)) }): RoutingPolicy {
    return super.create(name, params, deps);
  }
}

export function registerBuiltInRoutingPolicies(registry: RoutingPolicyRegistry): RoutingPolicyRegistry {
  return registry
    .register(ROUND_ROBIN, createRoundRobin)
    .register(LEAST_LOADED, createLeastLoaded)
    .register(ALWAYS_BUSIEST, createAlwaysBusiest)
    .register(WEIGHTED, createWeighted)
    .register(KV_ROUTER, createKvRouter);
}

export function createRoutingRegistry(): RoutingPolicyRegistry {
  return registerBuiltInRoutingPolicies(new RoutingPolicyRegistry());
}
