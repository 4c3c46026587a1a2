import { PolicyRegistry } from '../registry.js';
import type { AdmissionPolicy } from './admission-policy.js';
import { ALWAYS_ADMIT, createAlwaysAdmit } from './always-admit/always-admit.policy.js';

/** Every built-in admission policy, by the name config uses. */
export const ADMISSION_POLICY_NAMES = [ALWAYS_ADMIT] as const;
export type AdmissionPolicyName = (typeof ADMISSION_POLICY_NAMES)[number];

export type AdmissionPolicyRegistry = PolicyRegistry<AdmissionPolicy, Record<string, unknown>>;

export function registerBuiltInAdmissionPolicies(registry: AdmissionPolicyRegistry): AdmissionPolicyRegistry {
  return registry.register(ALWAYS_ADMIT, createAlwaysAdmit);
}

export function createAdmissionRegistry(): AdmissionPolicyRegistry {
  return registerBuiltInAdmissionPolicies(new PolicyRegistry('admission policy'));
}
