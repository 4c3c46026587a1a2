import type { ClusterView, InstanceView, PolicyRequest } from '../cluster-view.js';

export interface RoutingDecision {
  readonly instance: InstanceView;
}

/**
 * Picks the instance for one request. Returns null when no instance can take it ("nothing
 * eligible" is a normal answer, not an error). A policy instance belongs to one router.
 */
export interface RoutingPolicy {
  readonly name: string;
  route(request: PolicyRequest, cluster: ClusterView, nowUs: number): RoutingDecision | null;
}
