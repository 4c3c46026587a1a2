import { microsFromMillis, type BusyThresholdSettings, type Micros } from '@sluice/contracts';
import type { EngineCompat } from '@sluice/engine';
import type { PdDeciderRule } from './pd-decider.js';
import { DEFAULT_KV_EVENT_INDEX_CAPACITY, DEFAULT_KV_SNAPSHOT_REFRESH_US, readsKvEvents, type RoutingPolicyName } from '@sluice/policies';

/** The keys of the config's `router` section the core reads (a parsed sluice.yaml fits). */
export interface RouterConfig {
  readonly policy: RoutingPolicyName;
  readonly policies: Readonly<Record<string, unknown>>;
  readonly heartbeatTimeoutMs: number;
  readonly snapshotRefreshIntervalMs: number;
  readonly seed?: number | undefined;
  readonly kvEventRefreshMs?: number;
  readonly kvEventIndexCapacity?: number;
  /** `router.disaggregation`: the decider of a disaggregated deployment. */
  readonly disaggregation?: { readonly decider: 'dynamo'; readonly maxLocalPrefillLength: number } | { readonly decider: 'llm-d'; readonly nonCachedTokens: number } | { readonly decider: 'always' } | undefined;
}

const DEFAULT_KV_EVENT_REFRESH_MS = DEFAULT_KV_SNAPSHOT_REFRESH_US / 1000;

/** The KV-event index a router keeps when its policy reads the caches' events (docs/behaviour.md §4, precise prefix). */
export interface KvEventSettings {
  /** Events become visible to scorers once the view is this old (BLIS's cache-signal delay); 0 = at once. */
  readonly refreshUs: Micros;
  /** Blocks remembered per instance. */
  readonly capacityPerInstance: number;
}

export interface RoutingSettings {
  readonly policy: RoutingPolicyName;
  readonly params: unknown;
  /** An instance silent this long is lost. */
  readonly heartbeatTimeoutUs: Micros;
  /** Instance-reported signals become visible to the policy this often; 0 = at once. */
  readonly snapshotRefreshIntervalUs: Micros;
  /** Seed of the policy's tie-breaks. */
  readonly seed: number;
  /** Dynamo's busy thresholds as configured (`admission.policies.busy-threshold`); admission announces changes. */
  readonly busyThresholds?: BusyThresholdSettings;
  /** `blis`: ties are broken with Go's math/rand as BLIS does (docs/behaviour.md §1, BLIS parity mode); absent: `vllm`. */
  readonly compat?: EngineCompat;
  /** Present when the policy reads the workers' KV events: the router then keeps a KV-event index. */
  readonly kvEvents?: KvEventSettings;
  /** Disaggregated prefill/decode: picks a decode and, when this rule says so, a prefill instance (docs/behaviour.md §1). */
  readonly disaggregation?: PdDeciderRule;
}

/**
 * Settings from the config's `router` section. `defaultSeed` applies when the config sets none:
 * a service derives it from its instance id (so replicas break ties differently), the twin uses 0.
 */
export function routingSettingsFrom(config: RouterConfig, defaultSeed: number, busyThresholds?: BusyThresholdSettings): RoutingSettings {
  const params = config.policies[config.policy] ?? {};
  const kvEvents = readsKvEvents(config.policy, params)
    ? { kvEvents: { refreshUs: microsFromMillis(config.kvEventRefreshMs ?? DEFAULT_KV_EVENT_REFRESH_MS), capacityPerInstance: config.kvEventIndexCapacity ?? DEFAULT_KV_EVENT_INDEX_CAPACITY } }
    : {};
  return {
    ...(busyThresholds && { busyThresholds }),
    ...kvEvents,
    ...(config.disaggregation && { disaggregation: deciderRule(config.disaggregation) }),
    policy: config.policy,
    params,
    heartbeatTimeoutUs: microsFromMillis(config.heartbeatTimeoutMs),
    snapshotRefreshIntervalUs: microsFromMillis(config.snapshotRefreshIntervalMs),
    seed: config.seed ?? defaultSeed,
  };
}

/** The config's decider as the pick's rule. */
function deciderRule(config: NonNullable<RouterConfig['disaggregation']>): PdDeciderRule {
  switch (config.decider) {
    case 'dynamo':
      return { kind: 'dynamo', maxLocalPrefillLength: config.maxLocalPrefillLength };
    case 'llm-d':
      return { kind: 'llm-d', nonCachedTokens: config.nonCachedTokens };
    case 'always':
      return { kind: 'always' };
  }
}
