import { BLOCK_SIZE } from '@sluice/contracts';
import { z } from 'zod';
import type { ClusterView, InstanceView, PolicyRequest } from '../../cluster-view.js';
import { rankedDecision, routingCandidates } from '../decision.js';
import type { RoutingPolicy, RoutingPolicyDeps } from '../routing-policy.js';
import { softmaxSampleLowest } from './softmax-sample.js';

export const KV_ROUTER = 'kv-router';

export const KvRouterParamsSchema = z.strictObject({
  /** Weight of the prefill term against the decode term (Dynamo's `overlap_score_weight`, default 1). */
  overlapScoreWeight: z.number().finite().nonnegative().default(1),
  /** Softmax temperature over the normalised costs; 0 = the lowest cost (Dynamo's `router_temperature`, default 0). */
  temperature: z.number().finite().nonnegative().default(0),
  /** Overlap from the workers' KV events (the KV-event index); false: from the router's own prefix index (Dynamo's `use_kv_events`). */
  useKvEvents: z.boolean().default(true),
});
export type KvRouterParams = z.infer<typeof KvRouterParamsSchema>;

/** Per candidate, the terms of its cost, for the decision's span. */
interface CostTerms {
  readonly overlapBlocks: number;
  readonly prefillBlocks: number;
  readonly decodeBlocks: number;
}

/**
 * Dynamo's KV router (docs/behaviour.md §4, "kv-router"): each candidate's cost is
 *   overlapScoreWeight · prefill blocks + decode blocks
 * (ai-dynamo/dynamo lib/kv-router/src/scheduling/selector.rs, DefaultWorkerSelector, at
 * ccd1706e138fe41b54b85305598ad6b748f377fe), where prefill blocks are the prompt tokens the
 * instance would still have to prefill, the request's beyond its cached leading blocks plus those
 * already waiting there, over the block size; decode blocks are the KV blocks its decoding requests
 * hold plus those this request would add. Dynamo counts the load terms in the router itself; here
 * they come from the instance's load snapshot (activePrefillTokens, activeDecodeBlocks), the
 * request's own part added. At temperature 0 the lowest cost wins, ties to the instance holding
 * the fewest blocks (Dynamo's tree-size tie-break), then the seeded random source; above 0 the
 * choice is sampled by softmax over the costs normalised by their range (selector.rs
 * softmax_sample), from the seeded random source, so a run is reproducible. Score = −cost, so a
 * sampled choice that is not the cheapest shows as regret.
 */
export function createKvRouter(params: unknown, deps: RoutingPolicyDeps): RoutingPolicy {
  const { overlapScoreWeight, temperature, useKvEvents } = KvRouterParamsSchema.parse(params ?? {});
  const overlapsOf = (request: PolicyRequest, cluster: ClusterView, candidates: readonly InstanceView[]): number[] => {
    const lookup = useKvEvents ? cluster.kvCache : cluster.prefix;
    if (!lookup || request.blockHashes.length === 0) return candidates.map(() => 0);
    const bulk = lookup.matchedBlocksByInstance?.(request.blockHashes);
    return candidates.map((c) => (bulk ? (bulk.get(c.instanceId) ?? 0) : lookup.matchedBlocks(c.instanceId, request.blockHashes)));
  };
  const sizeOf = (cluster: ClusterView, instanceId: string): number => {
    const lookup = useKvEvents ? cluster.kvCache : cluster.prefix;
    return lookup?.blockCount?.(instanceId) ?? 0;
  };

  return {
    name: KV_ROUTER,
    route(request, cluster) {
      const candidates = routingCandidates(request, cluster);
      if (candidates.length === 0) return null;
      const overlaps = overlapsOf(request, cluster, candidates);
      const requestBlocks = Math.ceil(request.inputTokens / BLOCK_SIZE);
      const terms: CostTerms[] = candidates.map((c, i) => {
        const overlapBlocks = Math.min(overlaps[i]!, requestBlocks);
        const newPrefillTokens = Math.max(0, request.inputTokens - overlapBlocks * BLOCK_SIZE);
        return {
          overlapBlocks,
          prefillBlocks: (c.activePrefillTokens + newPrefillTokens) / BLOCK_SIZE,
          decodeBlocks: c.activeDecodeBlocks + requestBlocks - overlapBlocks,
        };
      });
      const costs = terms.map((t) => overlapScoreWeight * t.prefillBlocks + t.decodeBlocks);
      const chosen = softmaxSampleLowest(costs, temperature, deps.random, (tied) => {
        // Dynamo's tie-break: the instance holding the fewest blocks, then at random.
        const sizes = tied.map((i) => sizeOf(cluster, candidates[i]!.instanceId));
        const fewest = Math.min(...sizes);
        const smallest = tied.filter((_, k) => sizes[k] === fewest);
        return smallest[deps.tieBreak ? deps.tieBreak(smallest.length) : Math.floor(deps.random() * smallest.length)]!;
      });
      const scores = Float64Array.from(costs, (cost) => -cost);
      return rankedDecision(candidates, scores, chosen, (i) => ({ ...terms[i]!, cost: costs[i]! }));
    },
  };
}
