import { microsFromMillis, type BusyThresholdSettings, type Micros } from '@sluice/contracts';
import type { EngineCompat } from '@sluice/engine';
import type { RoutingPolicyName } from '@sluice/policies';

/** The keys of the config's `router` section the core reads (a parsed sluice.yaml fits). */
export interface RouterConfig {
  readonly policy: RoutingPolicyName;
  readonly policies: Readonly<Record<string, unknown>>;
  readonly heartbeatTimeoutMs: number;
  readonly snapshotRefreshIntervalMs: number;
  readonly seed?: number | undefined;
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
}

/**
 * Settings from the config's `router` section. `defaultSeed` applies when the config sets none:
 * a service derives it from its instance id (so replicas break ties differently), the twin uses 0.
 */
export function routingSettingsFrom(config: RouterConfig, defaultSeed: number, busyThresholds?: BusyThresholdSettings): RoutingSettings {
  return {
    ...(busyThresholds && { busyThresholds }),
    policy: config.policy,
    params: config.policies[config.policy] ?? {},
    heartbeatTimeoutUs: microsFromMillis(config.heartbeatTimeoutMs),
    snapshotRefreshIntervalUs: microsFromMillis(config.snapshotRefreshIntervalMs),
    seed: config.seed ?? defaultSeed,
  };
}
