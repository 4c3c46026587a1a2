import { PolicyRegistry } from '../registry.js';
import type { RoutingPolicy } from './routing-policy.js';
import { ROUND_ROBIN, createRoundRobin } from './round-robin/round-robin.policy.js';

export const ROUTING_POLICY_NAMES = [ROUND_ROBIN] as const;
export type RoutingPolicyName = (typeof ROUTING_POLICY_NAMES)[number];

export type RoutingPolicyRegistry = PolicyRegistry<RoutingPolicy, Record<string, unknown>>;

export function registerBuiltInRoutingPolicies(registry: RoutingPolicyRegistry): RoutingPolicyRegistry {
  return registry.register(ROUND_ROBIN, createRoundRobin);
}

export function createRoutingRegistry(): RoutingPolicyRegistry {
  return registerBuiltInRoutingPolicies(new PolicyRegistry('routing policy'));
}
