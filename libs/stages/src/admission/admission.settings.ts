import { microsFromMillis, type Micros } from '@sluice/contracts';
import type { AdmissionPolicyName } from '@sluice/policies';

/** The keys of the config's `admission` section the core reads (a parsed sluice.yaml fits). */
export interface AdmissionConfig {
  /** The chain: one policy, or several checked in order. */
  readonly policy: readonly AdmissionPolicyName[];
  readonly policies: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly heartbeatTimeoutMs: number;
}

export interface AdmissionSettings {
  /** The chain: one policy, or several checked in order (docs/behaviour.md §2). */
  readonly policy: readonly AdmissionPolicyName[];
  readonly policies: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** The models served: busy thresholds are kept per model. */
  readonly models: readonly string[];
  /** An instance silent this long leaves admission's view. */
  readonly heartbeatTimeoutUs: Micros;
  /**
   * Whether to keep a prefix index fed by KV events: `always` where the policy can be switched at
   * run time (the service), `when-read` where it cannot (the twin keeps one only for a policy
   * that reads it, such as slo-predictive).
   */
  readonly prefixIndex: 'always' | 'when-read';
}

/** Settings from the config's `admission` section and its models (the one ms → µs conversion). */
export function admissionSettingsFrom(config: AdmissionConfig, models: readonly string[], prefixIndex: AdmissionSettings['prefixIndex']): AdmissionSettings {
  return { policy: config.policy, policies: config.policies, models, heartbeatTimeoutUs: microsFromMillis(config.heartbeatTimeoutMs), prefixIndex };
}
