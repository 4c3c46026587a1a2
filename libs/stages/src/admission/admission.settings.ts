import { microsFromMillis, type Micros } from '@sluice/contracts';
import type { AdmissionPolicyName, StepCoefficients } from '@sluice/policies';

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
  /** The served models' step-time coefficients (`stepCoefficientsFrom` their profiles); absent: none known. */
  readonly stepCoefficients?: Readonly<Record<string, StepCoefficients>>;
  /** How long from admission until a request can be in a report (the hops to an instance): the ledger's settle time. Default 3 ms. */
  readonly ledgerSettleUs?: Micros;
}

/** A latency profile as admission reads it: its name and BLIS's β (step base, per prefill token, per decode token), µs. */
export interface ServingProfile {
  readonly name: string;
  readonly beta: readonly [number, number, number];
}

/**
 * A profile's step coefficients in wall-clock µs: a worker with `timeScale` N runs modelled time
 * N× faster, so each modelled µs takes 1/N of a real one (the twin runs at timeScale 1).
 */
export function stepCoefficientsFrom(profile: ServingProfile, timeScale: number): StepCoefficients {
  const [b0, b1, b2] = profile.beta;
  return { stepBaseUs: b0 / timeScale, prefillPerTokenUs: b1 / timeScale, decodePerTokenUs: b2 / timeScale, profile: profile.name };
}

/** Settings from the config's `admission` section and its models (the one ms → µs conversion). */
export function admissionSettingsFrom(config: AdmissionConfig, models: readonly string[], prefixIndex: AdmissionSettings['prefixIndex']): AdmissionSettings {
  return { policy: config.policy, policies: config.policies, models, heartbeatTimeoutUs: microsFromMillis(config.heartbeatTimeoutMs), prefixIndex };
}
