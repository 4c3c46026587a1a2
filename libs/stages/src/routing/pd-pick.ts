import type { Micros } from '@sluice/contracts';
import { servesDecode, servesPrefill, type WorkerRole } from '@sluice/engine';
import { isInstanceBusy, type BusyThresholds, type ClusterView, type InstanceView, type PolicyRequest, type RoutingDecision, type RoutingPolicy } from '@sluice/policies';
import { nonCachedTokens, prefillRemotely, type PdDeciderRule } from './pd-decider.js';

/**
 * The router's pick for a disaggregated deployment (docs/behaviour.md §1, "Disaggregated
 * prefill/decode"), in the order both peers use: the decode instance first, by the routing policy
 * among the instances that decode; then the decider reads how much of the prompt that instance
 * lacks; if the rest is worth a transfer, the same policy picks a prefill instance among those
 * that prefill. llm-d runs its `decode` scheduling profile, then its `prefill` profile when the
 * decider says so (`pd_profile_handler.go`, same commit as pd-decider.ts); Dynamo's decode worker
 * asks its disaggregated router and queues the prompt for a prefill worker.
 */

export interface PdPickSettings {
  readonly rule: PdDeciderRule;
  /** Tokens per KV block (the prefix match is counted in blocks). */
  readonly blockSize: number;
  /** The model's busy thresholds; each role is held only to its own (see `thresholdsForRole`). */
  readonly busy: BusyThresholds;
}

/**
 * Why the prompt is prefilled where it is: `remote` on the prefill instance; `local-below-threshold`
 * the decider kept it on the decode instance; `local-no-prefill-free` it wanted a transfer but no
 * prefill instance was free and the decode instance can prefill itself.
 */
export type PdPlacement = 'remote' | 'local-below-threshold' | 'local-no-prefill-free';

export interface PdPick {
  readonly decode: RoutingDecision;
  /** Present when the placement is `remote`. */
  readonly prefill?: RoutingDecision;
  readonly placement: PdPlacement;
  /** Prompt tokens the decode instance lacks: what the prefill computes, and what the decider read. */
  readonly nonCachedTokens: number;
  /** Prompt blocks the decode instance already holds: not transferred. */
  readonly cachedBlocks: number;
}

/** Why no pick: no instance of the model decodes (or none prefills when decoders cannot), or all such are busy. */
export type PdPickFailure = 'no-decode-instance' | 'no-prefill-instance' | 'all-busy';

/**
 * Seed 002's advice, Dynamo's two thresholds split by role: a prefill instance is busy only by its
 * pending prefill tokens, a decode instance only by its decoding blocks; an aggregated one by both.
 */
export function thresholdsForRole(busy: BusyThresholds, role: WorkerRole): BusyThresholds {
  if (role === 'prefill') return busy.activePrefillTokensThreshold === undefined ? {} : { activePrefillTokensThreshold: busy.activePrefillTokensThreshold };
  if (role === 'decode') return busy.activeDecodeBlocksThreshold === undefined ? {} : { activeDecodeBlocksThreshold: busy.activeDecodeBlocksThreshold };
  return busy;
}

/**
 * The decode and the prefill pick each have a policy of their own, as llm-d's `decode` and
 * `prefill` scheduling profiles each have their own plugins: one policy's state (a round-robin
 * cursor, a prefix index's belief) shared by both picks would couple them (a round-robin cursor
 * that alternates between the two lists lands on the same instance of each every time).
 */
export interface PdPolicies {
  readonly decode: RoutingPolicy;
  readonly prefill: RoutingPolicy;
}

export function pickPrefillAndDecode(
  request: PolicyRequest,
  view: ClusterView,
  roleOf: (instance: InstanceView) => WorkerRole,
  policies: PdPolicies,
  settings: PdPickSettings,
  nowUs: Micros,
): PdPick | PdPickFailure {
  const ofModel = view.instances.filter((instance) => instance.model === request.model);
  const decoders = ofModel.filter((instance) => servesDecode(roleOf(instance)));
  if (decoders.length === 0) return 'no-decode-instance';
  const freeDecoders = decoders.filter((instance) => !isInstanceBusy(instance, thresholdsForRole(settings.busy, roleOf(instance))));
  const decode = policies.decode.route(request, { ...view, instances: freeDecoders }, nowUs);
  if (!decode) return 'all-busy';

  const decodeRole = roleOf(decode.instance);
  const cachedBlocks = view.prefix?.matchedBlocks(decode.instance.instanceId, request.blockHashes) ?? 0;
  const nonCached = nonCachedTokens(request.inputTokens, cachedBlocks, settings.blockSize);
  const mustTransfer = !servesPrefill(decodeRole);
  if (!mustTransfer && !prefillRemotely(settings.rule, nonCached)) return { decode, placement: 'local-below-threshold', nonCachedTokens: nonCached, cachedBlocks };

  const prefillers = ofModel.filter((instance) => instance.instanceId !== decode.instance.instanceId && servesPrefill(roleOf(instance)));
  if (prefillers.length === 0 && mustTransfer) return 'no-prefill-instance';
  const freePrefillers = prefillers.filter((instance) => !isInstanceBusy(instance, thresholdsForRole(settings.busy, roleOf(instance))));
  const prefill = freePrefillers.length > 0 ? policies.prefill.route(request, { ...view, instances: freePrefillers }, nowUs) : null;
  if (prefill) return { decode, prefill, placement: 'remote', nonCachedTokens: nonCached, cachedBlocks };
  return mustTransfer ? 'all-busy' : { decode, placement: 'local-no-prefill-free', nonCachedTokens: nonCached, cachedBlocks };
}
